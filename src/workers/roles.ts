/**
 * What one `telematics serve` process does (`--role`). Processes with different roles share one
 * database and together behave as one `all` process: every piece of shared state (commands queue
 * and leases, trip cursors, idempotency keys, telemetry) lives in the database, none in memory.
 * - `api`: the HTTP API only; no background work.
 * - `workers`: the background workers only (command polling, trip detection, telemetry retention,
 *   idempotency key expiry); no API listener, only the operations listener if `--ops-port` is set.
 * - `gateway`: the tracker listeners that are configured (each protocol's `--<protocol>-port`)
 *   and the sending of commands to the trackers connected to this process.
 * - `writers`: with `--ingest-queue`, store the telemetry the edges (api, gateway) queued.
 */
export const SERVICE_ROLES = ['api', 'workers', 'gateway', 'writers'] as const;
export type ServiceRole = (typeof SERVICE_ROLES)[number];

/** Which roles a process runs. */
export type Roles = Readonly<Record<ServiceRole, boolean>>;

export const ALL_ROLES: Roles = Object.freeze({ api: true, workers: true, gateway: true, writers: true });

/** `api`, `workers`, `gateway`, `all`, or a comma-separated list of them; undefined if not. */
export function parseRoles(text: string): Roles | undefined {
  const parts = text.split(',').map((part) => part.trim().toLowerCase());
  const roles: Record<ServiceRole, boolean> = { api: false, workers: false, gateway: false, writers: false };
  for (const part of parts) {
    if (part === 'all') for (const role of SERVICE_ROLES) roles[role] = true;
    else if ((SERVICE_ROLES as readonly string[]).includes(part)) roles[part as ServiceRole] = true;
    else return undefined;
  }
  return Object.freeze(roles);
}

/** `all` when every role runs, else the list: for logs. */
export function describeRoles(roles: Roles): string {
  const on = SERVICE_ROLES.filter((role) => roles[role]);
  return on.length === SERVICE_ROLES.length ? 'all' : on.join(',');
}
