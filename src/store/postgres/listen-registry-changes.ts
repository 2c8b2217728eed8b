/**
 * The PostgreSQL side of `RegistryChanges`: one connection LISTENing on the registry channel
 * (fed by migration 0006's triggers). Every notification moves the generation; losing the
 * connection makes the changes not live (nothing cached) until it is back, retried each second.
 */
import pg from 'pg';
import { REGISTRY_CHANNEL, type RegistryChanges } from '../registry-changes.js';

const RETRY_MS = 1000;

export function listenForRegistryChanges(url: string, changes: RegistryChanges): { stop(): Promise<void> } {
  let stopped = false;
  let current: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  const scheduleRetry = () => {
    if (stopped || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, RETRY_MS);
    retry.unref();
  };

  const connect = async () => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    client.on('error', () => {}); // followed by 'end', handled there
    client.on('notification', () => changes.changed());
    client.on('end', () => {
      if (current === client) current = undefined;
      changes.setLive(false);
      scheduleRetry();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${REGISTRY_CHANNEL}`);
    } catch {
      changes.setLive(false);
      client.end().catch(() => {});
      scheduleRetry();
      return;
    }
    if (stopped) {
      await client.end().catch(() => {});
      return;
    }
    current = client;
    // The socket must not keep a finished process alive.
    (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
    changes.setLive(true);
  };

  void connect();
  return {
    async stop() {
      stopped = true;
      if (retry !== undefined) clearTimeout(retry);
      changes.setLive(false);
      await current?.end().catch(() => {});
    },
  };
}
