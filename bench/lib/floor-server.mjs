/**
 * The floor of the HTTP figures: Fastify, as the service builds it (same version, no request
 * logging), answering one route with a constant. Started as its own process like the service.
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
const body = { id: 'floor', status: 'ok' };
app.get('/floor', async () => body);
app.post('/floor', async () => body);
await app.listen({ port: Number(process.argv[2]), host: '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => app.close().then(() => process.exit(0)));
