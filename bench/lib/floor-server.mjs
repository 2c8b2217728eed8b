/**
 * The floors of the HTTP figures, in their own process like the service:
 * - GET /floor: Fastify (same version as the service, no logging, no hooks) answering a constant.
 * - GET /floor-vehicle (when FLOOR_VEHICLE_JSON is set): the same, answering that JSON (a
 *   vehicle as the service's GET /vehicle/{vin} answers it), serialized on every request.
 * - POST /floor-oem (when an automaker URL is given): the same, after one keep-alive HTTP exchange
 *   with that automaker (POST /commands, as a command creation must make), with nothing stored:
 *   the ceiling of any route that calls the automaker inside the request (the exchange:
 *   floor-exchange.mjs). An answer other than 2xx with a status URL fails the request (500),
 *   which fails the run.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { floorExchange } from './floor-exchange.mjs';

const [port, oemUrl, vin] = process.argv.slice(2);
const app = Fastify({ logger: false });
const body = { id: 'floor', status: 'ok' };
app.get('/floor', async () => body);
if (process.env.FLOOR_VEHICLE_JSON) {
  const vehicle = JSON.parse(process.env.FLOOR_VEHICLE_JSON);
  app.get('/floor-vehicle', async () => vehicle);
}
if (oemUrl) {
  const exchange = floorExchange(oemUrl, vin);
  app.post('/floor-oem', async () => {
    const statusUrl = await exchange(randomUUID());
    return { ...body, statusUrl };
  });
}
await app.listen({ port: Number(port), host: '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => app.close().then(() => process.exit(0)));
