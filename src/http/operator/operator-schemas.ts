/**
 * The operator API validates bodies with the fleet file's own checks (registry-entries.ts), so
 * its schemas ask only for an object; keys in paths are bounded text.
 */
import { Type } from 'typebox';

export const EntryBody = Type.Unsafe<Readonly<Record<string, unknown>>>({ type: 'object' });
export const NameParams = Type.Object({ name: Type.String({ maxLength: 64 }) });
export const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const VinParams = Type.Object({ vin: Type.String({ maxLength: 17 }) });
export const ClientIdParams = Type.Object({ client_id: Type.String({ maxLength: 64 }) });
/** Lists of one company's entries. */
export const CompanyQuery = Type.Object({ company: Type.Optional(Type.String({ maxLength: 64 })) });
