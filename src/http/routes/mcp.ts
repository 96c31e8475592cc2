import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { DomainError } from '../../domain/errors.ts';
import { createDocwrightMcpServer } from '../../mcp/tools.ts';
import { describeDomainError, type InProcessOperationsDeps, inProcessOperations } from '../mcp-operations.ts';

/** A JSON-RPC 2.0 message: a request, a notification, or a response to the server. */
const JsonRpcMessage = Type.Object({
  jsonrpc: Type.Literal('2.0'),
  id: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Integer()])),
  method: Type.Optional(Type.String({ maxLength: 200 })),
  params: Type.Optional(Type.Unknown()),
  result: Type.Optional(Type.Unknown()),
  error: Type.Optional(Type.Unknown()),
});

/**
 * `POST /mcp`: Docwright's MCP tools over Streamable HTTP, in stateless mode: every request
 * gets a server and transport of its own, bound to the calling key's project, and answers with
 * JSON (no session, no server-initiated stream). The key is checked by the API's hook like any
 * route's (`read` at least); creating jobs and follow-ups need `write`, checked per tool.
 */
export const mcpRoutes: FastifyPluginAsync<InProcessOperationsDeps> = async (app, deps) => {
  app.post(
    '/mcp',
    {
      config: { permission: 'read' },
      // JSON-RPC, described by its own tools/list rather than by the OpenAPI document.
      schema: {
        hide: true,
        body: Type.Union([JsonRpcMessage, Type.Array(JsonRpcMessage, { maxItems: 100 })]),
      },
    },
    async (request, reply) => {
      const principal = request.principal;
      if (principal?.kind !== 'key') throw new DomainError('unauthenticated', 'An API key is required');
      const server = createDocwrightMcpServer({
        operations: inProcessOperations(principal, deps),
        describeError: describeDomainError,
        onUnexpectedError: (error, tool) => request.log.error({ err: error, tool }, 'MCP tool failed'),
      });
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      reply.hijack();
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (error) {
        // The reply is the transport's: answer here what the error handler would have.
        request.log.error({ err: error }, 'MCP request failed');
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          reply.raw.end(JSON.stringify({ error: 'Internal error', requestId: request.id }));
        } else reply.raw.end();
      }
    },
  );

  // Stateless: no stream to open with GET and no session to end with DELETE.
  const notAllowed = (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .send({ error: 'This MCP endpoint is stateless: send JSON-RPC requests with POST /mcp' });
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      config: { permission: 'read' },
      schema: { hide: true },
      handler: notAllowed,
    });
  }
};
