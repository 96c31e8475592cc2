import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { JobService } from '../../domain/jobs/job-service.ts';
import { EventStreamResponse } from '../event-stream.ts';
import { errorResponses, JobParams } from '../schemas.ts';

export interface JobEventRoutesOptions {
  jobs: JobService;
  /** Comment lines keep an idle stream open through proxies. */
  heartbeatMs: number;
  /**
   * A stream ends after this long even while its job runs: the client resumes from its last id,
   * and the new request is authenticated again (a revoked key or ended session stops there).
   */
  streamMs: number;
}

/** What an EventSource waits before reconnecting after the stream broke. */
const RETRY_MS = 2000;
const EVENT_ID = '^[0-9]{1,15}$';

const EventsQuery = Type.Object({
  lastEventId: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description:
        'Resume after this event id, for clients that cannot send the Last-Event-ID header; the header wins.',
    }),
  ),
});
const EventsHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      pattern: EVENT_ID,
      description: 'Resume after this event id (EventSource sends it on reconnect).',
    }),
  ),
});

/**
 * `GET /v2/agent/{projectId}/job/{id}/events`: the job's events as Server-Sent Events. The
 * handler answers 204 when a finished job is resumed after its last event (EventSource then
 * stops reconnecting); otherwise it takes over the response and writes events as the domain
 * yields them, until the job is finished, the client goes away or the server closes.
 */
export const jobEventRoutes: FastifyPluginAsyncTypebox<JobEventRoutesOptions> = async (app, options) => {
  const { jobs, heartbeatMs, streamMs } = options;
  const streams = new Set<AbortController>();
  let closing = false;
  // Open streams would hold the server's close until their jobs finish: end them first.
  app.addHook('preClose', (done) => {
    closing = true;
    for (const stream of streams) stream.abort();
    done();
  });

  app.get(
    '/v2/agent/:projectId/job/:id/events',
    {
      config: { permission: 'read' },
      schema: {
        summary: "Follow a job's events (Server-Sent Events)",
        description:
          "A `text/event-stream` of the job's status changes, turns, stored messages, the agent's steps and plan as they happen and its pull request. " +
          "Without Last-Event-ID it starts with the job's current status (id 0), then replays every event of the job; with it, it sends only later events. " +
          'A comment line comes every 15 s (DOCWRIGHT_EVENTS_HEARTBEAT_SECONDS). The stream ends after the job is completed, failed or archived, and otherwise after 10 minutes (DOCWRIGHT_EVENTS_STREAM_SECONDS): resume from the last id, as EventSource does by itself, and the key is checked again. Polling the job works as before.',
        tags: ['Agent jobs'],
        security: [{ bearerAuth: [] }],
        params: JobParams,
        querystring: EventsQuery,
        headers: EventsHeaders,
        response: {
          200: {
            description: 'The stream of events; each is one of the JobEvent shapes.',
            content: { 'text/event-stream': { schema: Type.Ref('JobEvent') } },
          },
          204: {
            description: 'Nothing more will come: the job is finished and was resumed after its last event.',
            type: 'null',
          },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const { projectId, id } = request.params;
      const header = request.headers['last-event-id'];
      // EventSource reconnects to the same URL with the header: the header is the newer position.
      const after = header !== undefined ? Number(header) : (request.query.lastEventId ?? null);
      const controller = new AbortController();
      const stream = await jobs.events(projectId, id, after, controller.signal);
      if (stream === null) return reply.code(204).send(null);

      reply.hijack();
      streams.add(controller);
      const response = new EventStreamResponse(reply.raw);
      reply.raw.on('close', () => controller.abort());
      const lifetime = setTimeout(() => controller.abort(), streamMs);
      response.open(reply.getHeaders() as OutgoingHttpHeaders, { retryMs: RETRY_MS, heartbeatMs });
      try {
        for await (const batch of stream) {
          for (const event of batch) await response.send(event.id, event.type, event.data);
          if (controller.signal.aborted) break;
        }
      } catch (error) {
        // The head is sent: all that is left is to end the stream; the client resumes from its last id.
        request.log.error({ err: error }, 'job event stream failed');
      } finally {
        clearTimeout(lifetime);
        streams.delete(controller);
        response.end();
        // The server is closing: an idle keep-alive connection would keep it waiting.
        if (closing) reply.raw.socket?.end();
      }
    },
  );
};
