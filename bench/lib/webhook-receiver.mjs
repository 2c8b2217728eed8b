/**
 * The webhook receiver of the webhooks suite, in its own process: a bare node:http server that
 * answers the `webhook.verification` challenge, answers 204 to every other POST (nothing
 * verified, nothing parsed: a receiver as fast as one can be), and keeps each event id's first
 * receipt time (Date.now() once the body has arrived) and how many POSTs came in all.
 *
 * - GET /stats: `{ distinct, posts }` (posts − distinct = duplicates).
 * - GET /receipts?from=k: `[[id, ms], …]`, first receipts in arrival order from the k-th.
 * Any other POST is a webhook, whatever its path.
 */
import http from 'node:http';

const [port] = process.argv.slice(2);
const seen = new Set();
const firsts = [];
let posts = 0;

const server = http.createServer((req, res) => {
  if (req.method === 'GET') {
    const url = new URL(req.url, 'http://receiver');
    const body = url.pathname === '/stats' ? { distinct: seen.size, posts }
      : url.pathname === '/receipts' ? firsts.slice(Number(url.searchParams.get('from') ?? 0)) : undefined;
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'not found' }));
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = Date.now();
    const id = req.headers['webhook-id'];
    posts += 1;
    if (typeof id === 'string' && !seen.has(id)) {
      seen.add(id);
      firsts.push([id, at]);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    if (text.includes('"webhook.verification"')) {
      const challenge = JSON.parse(text).data?.challenge;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ challenge }));
      return;
    }
    res.writeHead(204);
    res.end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(port), '127.0.0.1');
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => { server.closeAllConnections(); server.close(() => process.exit(0)); });
