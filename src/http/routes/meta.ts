import type { FastifyPluginAsync } from 'fastify';

/** Health and the OpenAPI document. */
export const metaRoutes: FastifyPluginAsync = async (app) => {
  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
};
