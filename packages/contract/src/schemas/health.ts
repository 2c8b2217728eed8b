/** GET /healthz and GET /readyz. */
import { Type, type Static } from 'typebox';

export const HealthStatus = Type.Object({ status: Type.String() });
export type HealthStatus = Static<typeof HealthStatus>;
