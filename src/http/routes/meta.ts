import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';

/** Health and the OpenAPI document. */
export const metaRoutes: FastifyPluginAsync = async (app) => {
  app.get(
    '/health',
    {
      schema: {
        summary: 'Health check',
        description: 'Answers 200 while the server takes requests. No key needed.',
        tags: ['Meta'],
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
};
