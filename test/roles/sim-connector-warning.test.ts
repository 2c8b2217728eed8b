/**
 * A registry with a `sim` automaker and a service started without `--sim`: the vehicles of that
 * automaker send nothing and its commands answer 502. The start says so in one warn line naming
 * the automaker and the flag, and the 502's cause is in the log under the request's id.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { validateFleetFile, type Fleet } from '../../src/domain/fleet-file.js';
import { createLogger } from '../../src/logger.js';
import { applyFleet } from '../../src/registry/apply-fleet.js';
import { generateKeyringDocument, keyringFromDocument } from '../../src/security/keyring.js';
import { startService } from '../../src/service.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-store.js';
import { sign } from '../support/command-client.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { ALPHA_VINS, fixtureFleet, SECRETS } from '../support/fixture-fleet.js';
import { scaled } from '../support/timeouts.js';

const SIM_WARNING = 'automaker simmotors uses the sim connector but the simulation is off: its vehicles send nothing and its commands answer 502; '
  + 'start with --sim (TELEMATICS_SIM=true) to simulate it';

describe.each(DATABASE_KINDS)('a sim automaker without the simulation, on %s', (kind) => {
  const keys = generateKeyringDocument();
  const env = { TELEMATICS_JWT_KEYS: keys.jwt[0]!.secret, TELEMATICS_MASTER_KEYS: keys.master[0]!.key };
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const store = openStore(database.url, { poolSize: 1 });
    try {
      await migrateToLatest(store);
      const validation = validateFleetFile(fixtureFleet());
      await applyFleet(store.db, (validation as { fleet: Fleet }).fleet, keyringFromDocument(keys, 'test'), Date.now());
    } finally {
      await store.close();
    }
  });
  afterAll(async () => { await database?.drop(); });

  async function started(flags: Record<string, string | boolean>) {
    const lines: string[] = [];
    const logger = createLogger('info', new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } }));
    const service = await startService(loadConfig({ database: database.url, port: 0, ...flags }, env), { logger });
    const logged = () => lines.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    return { service, logged };
  }

  it('when the service starts without --sim, then one warn line names the automaker and the flag, and a command answers 502 with its cause logged', async () => {
    const { service, logged } = await started({ sim: false });
    try {
      expect(logged().filter((l) => l.msg === SIM_WARNING)).toEqual([expect.objectContaining({ level: 40, automakers: ['simmotors'] })]);

      const form = new URLSearchParams({ client_id: 'alpha-dispatch', client_secret: SECRETS.alphaDispatch.client });
      const { token } = await (await fetch(`${service.url}/token`, { method: 'POST', body: form })).json() as { token: string };
      const answer = await fetch(`${service.url}/vehicle-command`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-signature': sign(SECRETS.alphaDispatch.sign, ALPHA_VINS[0], 'diagnostics') },
        body: JSON.stringify({ vin: ALPHA_VINS[0], command: 'diagnostics' }),
      });
      const body = await answer.json() as { id: string; detail: string };
      expect(answer.status).toBe(502);
      expect(body.detail).toBe('Failed to send command to the OEM.');
      const requestId = answer.headers.get('x-request-id');
      const cause = logged().find((l) => l.commandId === body.id);
      expect(cause).toMatchObject({
        level: 40, automaker: 'simmotors', connector: 'sim', vin: ALPHA_VINS[0], command: 'diagnostics',
        cause: 'no simulated automaker cloud runs in this process (serve --sim starts one)',
        msg: 'command answered 502: the automaker simmotors could not start it (no simulated automaker cloud runs in this process (serve --sim starts one))',
      });
      expect(cause!.reqId).toBe(requestId);
      expect(JSON.stringify(logged())).not.toContain(SECRETS.alphaDispatch.sign);
    } finally {
      await service.close();
    }
  }, scaled(60_000));

  it('when the service starts with --sim, then there is no such warning', async () => {
    const { service, logged } = await started({ sim: true, simBackfill: '0' });
    try {
      expect(logged().filter((l) => String(l.msg).includes('sim connector'))).toEqual([]);
    } finally {
      await service.close();
    }
  }, scaled(60_000));
});
