/**
 * The automaker exchange of the bare floors (floor-server.mjs, durable-floor.mjs): POST /commands
 * through undici's dispatcher with a handler that only gathers the answer, as the service's
 * (src/oem/http-exchange.ts) does: on node:http's client (~45 µs an exchange against ~27,
 * docs/decisions/0023) a floor's exchange would cost more than the service's own. Resolves to
 * the automaker's status URL; an answer other than 2xx with one rejects, which fails the run.
 */
import { Agent } from 'undici';

export function floorExchange(oemUrl, vin) {
  const agent = new Agent({ connections: 128 });
  const { origin } = new URL(oemUrl);
  const headers = { 'content-type': 'application/json' };
  return (id) => new Promise((resolve, reject) => {
    const chunks = [];
    let status = 0;
    agent.dispatch({ origin, path: '/commands', method: 'POST', headers, body: JSON.stringify({ id, vin, command: 'diagnostics' }) }, {
      onRequestStart() {},
      onResponseStart(_controller, statusCode) { status = statusCode; },
      onResponseData(_controller, chunk) { chunks.push(chunk); },
      onResponseEnd() {
        const answer = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (status < 200 || status > 299 || typeof answer.status_url !== 'string') reject(new Error(`the automaker answered ${status}`));
        else resolve(answer.status_url);
      },
      onResponseError(_controller, error) { reject(error); },
    });
  });
}
