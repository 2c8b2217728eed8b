/**
 * A hostile automaker's success answer reaches the tenant only as the documented result fields of
 * that command, with their documented types (docs/commands.md, "Command catalogue"): prototype
 * keys, unknown fields, markup in numeric fields and out-of-set strings are dropped.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandClient, type CommandClient } from '../support/command-client.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, fixtureFleet, SECRETS } from '../support/fixture-fleet.js';
import { startTestService, type TestService } from '../support/test-service.js';

const VIN = ALPHA_VINS[2];

/** Raw JSON text: written as a JS object, `__proto__` would set the prototype instead of a key. */
const HOSTILE_RESULTS: Record<string, string> = {
  diagnostics: `{"__proto__": {"polluted": true, "odometer": 1}, "constructor": "x", "toString": 1,
    "odometer": "<script>alert(1)</script>", "extra": 1, "fuel_amount": 12.5, "fuel_capacity": null,
    "fuel_level": "55", "fuel_range": {"valueOf": 3}, "total_fuel_used": 1e999, "oil_remaining_life": null,
    "seat_belt_status": "buckled", "system_power_mode": "<img src=x onerror=alert(1)>",
    "left_front_tire_pressure": 231.5, "left_front_tire_pressure_status": "low",
    "right_rear_tire_pressure_status": ["nominal"], "date_time": "2026-11-20 09:00:04"}`,
  lock_doors: `{"doors": "<b>locked</b>", "date_time": "2026-11-20 09:00:04<script>", "__proto__": {"doors": "locked"}}`,
  locate: `{"latitude": -23.5, "longitude": "-46.6", "heading": true, "speed": 0, "date_time": "2026-11-20 09:00:04", "hv_battery_soc": 50}`,
};

describe.each(DATABASE_KINDS)('a hostile automaker\'s results on %s', (kind) => {
  let svc: TestService;
  let server: Server;
  let client: CommandClient;

  beforeAll(async () => {
    const commands = new Map<string, string>();
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => {
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        if (req.method === 'POST' && req.url === '/commands') {
          const { id, command } = JSON.parse(body) as { id: string; command: string };
          commands.set(id, command);
          res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ status_url: `${base}/status/${id}` }));
          return;
        }
        const command = commands.get(req.url!.slice('/status/'.length)) ?? 'diagnostics';
        res.writeHead(200, { 'content-type': 'application/json' }).end(`{"status": "success", "result": ${HOSTILE_RESULTS[command]}}`);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const fleet = fixtureFleet();
    Object.assign(fleet.oems[1]!, { base_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, commands: '*' });
    fleet.companies[0]!.vehicles[2]!.ownership = 'owned';
    svc = await startTestService(kind, fleet);
    client = commandClient(svc, await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client), SECRETS.alphaDispatch.sign);
  });
  afterAll(async () => {
    await svc?.close();
    server?.closeAllConnections();
    await new Promise<void>((r) => server ? server.close(() => r()) : r());
  });

  async function outcome(command: string) {
    const created = await client.send({ vin: VIN, command });
    expect(created.body.status).toBe('Pending');
    svc.clock.advance(2000);
    await svc.worker.runOnce();
    const res = await client.status(created.body.id);
    expect(res.body.status).toBe('Success');
    // The stored row holds no more than the answer does.
    const row = await svc.store.db.selectFrom('commands').select('detail').where('id', '=', created.body.id).executeTakeFirstOrThrow();
    expect(JSON.parse(row.detail)).toEqual(res.body.detail);
    return res;
  }

  it('when a diagnostics result carries __proto__, constructor, extra fields and markup in numeric fields, then only documented fields of documented types reach the tenant', async () => {
    const res = await outcome('diagnostics');
    expect(res.text).not.toMatch(/__proto__|constructor|polluted|extra|script|onerror|toString/);
    expect(Object.getPrototypeOf(res.body.detail)).toBe(Object.prototype);
    expect(res.body.detail).toStrictEqual({
      fuel_amount: 12.5, fuel_capacity: null, oil_remaining_life: null, left_front_tire_pressure: 231.5,
      left_front_tire_pressure_status: 'low', seat_belt_status: 'buckled', date_time: '2026-11-20 09:00:04',
    });
  });

  it('when a lock_doors result has markup in its enumerated field and a malformed date_time, then both are dropped', async () => {
    const res = await outcome('lock_doors');
    expect(res.body.detail).toStrictEqual({});
  });

  it('when a locate result has a number as a string, a boolean heading and another command\'s field, then only the valid locate fields remain', async () => {
    const res = await outcome('locate');
    expect(res.body.detail).toStrictEqual({ latitude: -23.5, speed: 0, date_time: '2026-11-20 09:00:04' });
  });
});
