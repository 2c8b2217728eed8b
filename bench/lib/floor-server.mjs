/**
 * The floors of the HTTP figures, in their own process like the service:
 * - GET /floor: Fastify (same version as the service, no logging, no hooks) answering a constant.
 * - GET /floor-vehicle (when FLOOR_VEHICLE_JSON is set): the same, answering that JSON (a
 *   vehicle as the service's GET /vehicle/{vin} answers it), serialized on every request.
 * - POST /floor-oem (when an automaker URL is given): the same, after one keep-alive HTTP exchange
 *   with that automaker (POST /commands, as a command creation must make), with nothing stored:
 *   the ceiling of any route that calls the automaker inside the request.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import Fastify from 'fastify';

const [port, oemUrl, vin] = process.argv.slice(2);
const app = Fastify({ logger: false });
const body = { id: 'floor', status: 'ok' };
app.get('/floor', async () => body);
if (process.env.FLOOR_VEHICLE_JSON) {
  const vehicle = JSON.parse(process.env.FLOOR_VEHICLE_JSON);
  app.get('/floor-vehicle', async () => vehicle);
}
if (oemUrl) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });
  const target = new URL('/commands', oemUrl);
  const exchange = () => new Promise((resolve, reject) => {
    const payload = JSON.stringify({ id: randomUUID(), vin, command: 'diagnostics' });
    const req = http.request(target, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
    });
    req.on('error', reject);
    req.end(payload);
  });
  app.post('/floor-oem', async () => {
    const { status_url: statusUrl } = await exchange();
    return { ...body, statusUrl };
  });
}
await app.listen({ port: Number(port), host: '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => app.close().then(() => process.exit(0)));
