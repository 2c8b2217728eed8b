/**
 * What a database error means for the request that met it, so callers never read SQLSTATEs,
 * SQLite error names or pg's messages themselves:
 * - 'unavailable': the database is unreachable or refusing work for now; the same request may be
 *   sent again. A deadlock or serialization failure (40P01, 40001) rolled the statement back
 *   whole, so it counts here too; queries are written not to cause them.
 * - 'bad-input': PostgreSQL class 22 (data exception: NUL byte, value out of range…), i.e. input
 *   that slipped past validation; still the caller's input.
 * - undefined: anything else (a bug, or not a database error at all).
 */
export type StoreErrorKind = 'unavailable' | 'bad-input';

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN',
  '57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08006', '40P01', '40001', 'SQLITE_BUSY',
]);

/** pg's errors for a lost or unobtainable connection carry no code, only these messages. */
const UNAVAILABLE_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

const DATA_EXCEPTION = /^22[0-9A-Z]{3}$/;

/** The one line an operator reads when the database at `where` (no password) cannot be reached; undefined for other errors. */
export function unreachableMessage(error: unknown, where: string): string | undefined {
  const reason = unreachableDetail(error);
  return reason === undefined ? undefined
    : `cannot reach the database ${where.replace(/^postgres:/, '')}: ${reason} (is it running, and are --database / DATABASE_URL right?)`;
}

/** Why the database could not be reached, in words, when that is what `error` (or its cause) says. */
function unreachableDetail(error: unknown): string | undefined {
  const inner = (error as { cause?: unknown } | null)?.cause ?? error;
  if (classifyStoreError(inner) !== 'unavailable') return undefined;
  const { code, message } = inner as { code?: unknown; message?: unknown };
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND') return 'host not found';
  if (code === 'ETIMEDOUT') return 'connection timed out';
  return typeof message === 'string' ? message : String(code);
}

export function classifyStoreError(error: unknown): StoreErrorKind | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return 'unavailable';
  if (code === undefined && typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return 'unavailable';
  if (typeof code === 'string' && DATA_EXCEPTION.test(code)) return 'bad-input';
  return undefined;
}

/** A unique constraint refused the write (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_UNIQUE): two writers raced for one key. */
export function isUniqueViolation(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
