import { openStore } from '../../src/store/open-store.js';
import { scaled } from './timeouts.js';

/**
 * Waits (up to `withinMs`, times TEST_TIMEOUT_FACTOR) until every command of `ids` has its status URL. On PostgreSQL
 * `Pending` is answered before that commit (create-command.ts): a test that kills the service
 * and means commands with a URL to poll waits for this first.
 */
export async function statusUrlsStored(databaseUrl: string, ids: readonly string[], withinMs: number): Promise<void> {
  const store = openStore(databaseUrl, { poolSize: 1 });
  try {
    const deadline = Date.now() + scaled(withinMs);
    for (;;) {
      const stored = await store.db.selectFrom('commands').select('id').where('id', 'in', ids).where('status_url', 'is not', null).execute();
      if (stored.length === ids.length) return;
      if (Date.now() > deadline) throw new Error(`${ids.length - stored.length} status URLs not stored after ${scaled(withinMs) / 1000} s`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await store.close();
  }
}
