// The baseline: a bare Fastify route returning a constant object, in its own process.
import Fastify from 'fastify';

const app = Fastify();
const job = {
  id: 'job_0000000000000000000000000',
  status: 'active',
  source: { repository: 'https://example.com/docs.git', ref: 'docwright/00000000-bench' },
  model: null,
  prLink: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  archivedAt: null,
};
app.get('/job', async () => job);
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({ baseUrl: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` })}\n`,
);
