import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { WebhookService } from '../../domain/webhooks/webhook-service.ts';
import { bodyErrorResponses, error, errorResponses, ok, ProjectParams } from '../schemas.ts';
import {
  CreateWebhookBody,
  DeliveryListQuery,
  DeliveryParams,
  UpdateWebhookBody,
  WebhookParams,
} from '../webhook-schemas.ts';

export interface WebhookRoutesOptions {
  webhooks: WebhookService;
}

const tags = ['Webhooks'];
const security = [{ bearerAuth: [] }];

/**
 * `/v2/agent/{projectId}/webhooks…`: a project's signed webhook endpoints and their delivery
 * logs. Reading needs a read key; everything else an admin key (the default permissions).
 */
export const webhookRoutes: FastifyPluginAsyncTypebox<WebhookRoutesOptions> = async (app, { webhooks }) => {
  app.post(
    '/v2/agent/:projectId/webhooks',
    {
      schema: {
        summary: 'Create a webhook endpoint',
        description:
          'Docwright POSTs the events it subscribes to (all when `events` is left out), signed with the secret in the answer, which is shown only this once. See docs/webhooks.md.',
        tags,
        security,
        params: ProjectParams,
        body: CreateWebhookBody,
        response: {
          201: ok('WebhookEndpointWithSecret', 'The endpoint, with its signing secret (shown once).'),
          ...bodyErrorResponses,
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await webhooks.create(request.params.projectId, request.body)),
  );

  app.get(
    '/v2/agent/:projectId/webhooks',
    {
      schema: {
        summary: 'List webhook endpoints',
        tags,
        security,
        params: ProjectParams,
        response: {
          200: ok('WebhookEndpointList', 'The endpoints, oldest first (no secrets).'),
          ...errorResponses,
        },
      },
    },
    async (request) => ({ webhooks: await webhooks.list(request.params.projectId) }),
  );

  app.patch(
    '/v2/agent/:projectId/webhooks/:id',
    {
      schema: {
        summary: 'Update a webhook endpoint',
        description:
          'Changes its URL, events or enabled flag (what is left out stays). A paused endpoint (enabled: false) is not given new events; deliveries already queued are still sent, to the URL it has when they go.',
        tags,
        security,
        params: WebhookParams,
        body: UpdateWebhookBody,
        response: { 200: ok('WebhookEndpoint', 'The endpoint as it is now.'), ...bodyErrorResponses },
      },
    },
    async (request) => webhooks.update(request.params.projectId, request.params.id, request.body),
  );

  app.post(
    '/v2/agent/:projectId/webhooks/:id/rotate-secret',
    {
      schema: {
        summary: "Rotate an endpoint's signing secret",
        description:
          'Replaces the signing secret with a new one, shown only in this answer. For 24 hours the replaced secret keeps signing too: each delivery carries `v1=<new>,v1=<old>`, so the receiver can switch without losing events. See docs/webhooks.md.',
        tags,
        security,
        params: WebhookParams,
        response: {
          200: ok('WebhookEndpointWithSecret', 'The endpoint, with its new signing secret (shown once).'),
          ...errorResponses,
          409: error(
            'Conflict: other rotations of the same endpoint kept winning at the same moment; nothing changed by this one, try again.',
          ),
        },
      },
    },
    async (request) => webhooks.rotateSecret(request.params.projectId, request.params.id),
  );

  app.delete(
    '/v2/agent/:projectId/webhooks/:id',
    {
      schema: {
        summary: 'Delete a webhook endpoint',
        description: 'Its pending deliveries are not sent, and its delivery log goes with it.',
        tags,
        security,
        params: WebhookParams,
        response: { 204: { type: 'null', description: 'Deleted.' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      await webhooks.delete(request.params.projectId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v2/agent/:projectId/webhooks/:id/test',
    {
      schema: {
        summary: 'Send a test event',
        description:
          'Queues a `webhook.test` event to this endpoint only, signed like any other; follow it in the delivery log.',
        tags,
        security,
        params: WebhookParams,
        response: { 202: ok('WebhookDelivery', 'The queued delivery.'), ...errorResponses },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await webhooks.test(request.params.projectId, request.params.id)),
  );

  app.get(
    '/v2/agent/:projectId/webhooks/:id/deliveries',
    {
      schema: {
        summary: "List an endpoint's deliveries",
        description: 'Newest first: status, attempts, last response code and error.',
        tags,
        security,
        params: WebhookParams,
        querystring: DeliveryListQuery,
        response: { 200: ok('WebhookDeliveryList', 'The latest deliveries.'), ...errorResponses },
      },
    },
    async (request) => ({
      deliveries: await webhooks.deliveries(
        request.params.projectId,
        request.params.id,
        request.query.limit ?? 50,
      ),
    }),
  );

  app.post(
    '/v2/agent/:projectId/webhooks/:id/deliveries/:deliveryId/resend',
    {
      schema: {
        summary: 'Re-send a delivery',
        description:
          'Queues the delivery again with the same body and event id, whatever its status, with a fresh retry window.',
        tags,
        security,
        params: DeliveryParams,
        response: { 202: ok('WebhookDelivery', 'The delivery, pending again.'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { projectId, id, deliveryId } = request.params;
      return reply.code(202).send(await webhooks.resend(projectId, id, deliveryId));
    },
  );
};
