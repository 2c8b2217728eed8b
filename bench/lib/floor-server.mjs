/**
 * The floors of the HTTP figures, in their own process like the service:
 * - GET /floor: Fastify (same version as the service, no logging, no hooks) answering a constant.
 * - GET /floor-vehicle (when FLOOR_VEHICLE_JSON is set): the same, answering that JSON (a
 *   vehicle as the service's GET /vehicle/{vin} answers it), serialized on every request.
 * - POST /floor-oem (when an automaker URL is given): the same, after one keep-alive HTTP exchange
 *   with that automaker (POST /commands, as a command creation must make), with nothing stored:
 *   the ceiling of any route that calls the automaker inside the request. The exchange goes
 *   through undici's dispatcher with a handler that only gathers the answer, as the service's
 *   (src/oem/http-exchange.ts) does: on node:http's client (~45 µs an exchange against ~27,
 *   RESULTS.md's ninth step) the floor's exchange would cost more than the service's own. An
 *   answer other than 2xx with a status URL fails the request (500), which fails the run.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { Agent } from 'undici';

const [port, oemUrl, vin] = process.argv.slice(2);
const app = Fastify({ logger: false });
const body = { id: 'floor', status: 'ok' };
app.get('/floor', async () => body);
if (process.env.FLOOR_VEHICLE_JSON) {
  const vehicle = JSON.parse(process.env.FLOOR_VEHICLE_JSON);
  app.get('/floor-vehicle', async () => vehicle);
}
if (oemUrl) {
  const agent = new Agent({ connections: 128 });
  const { origin } = new URL(oemUrl);
  const headers = { 'content-type': 'application/json' };
  const exchange = () => new Promise((resolve, reject) => {
    const chunks = [];
    let status = 0;
    agent.dispatch({ origin, path: '/commands', method: 'POST', headers, body: JSON.stringify({ id: randomUUID(), vin, command: 'diagnostics' }) }, {
      onRequestStart() {},
      onResponseStart(_controller, statusCode) { status = statusCode; },
      onResponseData(_controller, chunk) { chunks.push(chunk); },
      onResponseEnd() {
        const answer = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (status < 200 || status > 299 || typeof answer.status_url !== 'string') reject(new Error(`the automaker answered ${status}`));
        else resolve(answer);
      },
      onResponseError(_controller, error) { reject(error); },
    });
  });
  app.post('/floor-oem', async () => {
    const { status_url: statusUrl } = await exchange();
    return { ...body, statusUrl };
  });
}
await app.listen({ port: Number(port), host: '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => app.close().then(() => process.exit(0)));
