import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AutomationService } from '../../domain/automations/automation-service.ts';
import {
  AutomationParams,
  createAutomationBody,
  RunListQuery,
  triggerBody,
  updateAutomationBody,
} from '../automation-schemas.ts';
import { bodyErrorResponses, error, errorResponses, ok, ProjectParams } from '../schemas.ts';

export interface AutomationRoutesOptions {
  automations: AutomationService;
  /** The longest prompt a job takes: bounds the instructions and a trigger's extra context. */
  maxPromptLength: number;
}

const tags = ['Automations'];
const security = [{ bearerAuth: [] }];

/**
 * `/v2/agent/{projectId}/automations…`: a project's automations and their runs. Reading
 * needs a read key; everything else an admin key (the default permissions).
 */
export const automationRoutes: FastifyPluginAsyncTypebox<AutomationRoutesOptions> = async (app, options) => {
  const { automations, maxPromptLength } = options;

  app.post(
    '/v2/agent/:projectId/automations',
    {
      schema: {
        summary: 'Create an automation',
        description:
          "A code_change automation's answer carries its webhook secret and hook URL, shown only this once. See docs/automations.md.",
        tags,
        security,
        params: ProjectParams,
        body: createAutomationBody(maxPromptLength),
        response: {
          201: ok('AutomationWithSecret', 'The automation (with its webhook secret, for code_change).'),
          ...bodyErrorResponses,
          409: error('Conflict: the project already has the most automations allowed; delete one first.'),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await automations.create(request.params.projectId, request.body)),
  );

  app.get(
    '/v2/agent/:projectId/automations',
    {
      schema: {
        summary: 'List automations',
        tags,
        security,
        params: ProjectParams,
        response: { 200: ok('AutomationList', 'The automations, oldest first.'), ...errorResponses },
      },
    },
    async (request) => ({ automations: await automations.list(request.params.projectId) }),
  );

  app.get(
    '/v2/agent/:projectId/automations/:id',
    {
      schema: {
        summary: 'Get an automation',
        tags,
        security,
        params: AutomationParams,
        response: { 200: ok('Automation', 'The automation.'), ...errorResponses },
      },
    },
    (request) => automations.get(request.params.projectId, request.params.id),
  );

  app.patch(
    '/v2/agent/:projectId/automations/:id',
    {
      schema: {
        summary: 'Change an automation',
        description:
          "Changes the fields given. The trigger's kind cannot change; a changed schedule runs from now on; a code_change trigger keeps its secret.",
        tags,
        security,
        params: AutomationParams,
        body: updateAutomationBody(maxPromptLength),
        response: { 200: ok('Automation', 'The automation, changed.'), ...bodyErrorResponses },
      },
    },
    (request) => automations.update(request.params.projectId, request.params.id, request.body),
  );

  app.delete(
    '/v2/agent/:projectId/automations/:id',
    {
      schema: {
        summary: 'Delete an automation',
        description: 'Its runs go with it; the jobs they started stay.',
        tags,
        security,
        params: AutomationParams,
        response: { 204: { type: 'null', description: 'Deleted.' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      await automations.delete(request.params.projectId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v2/agent/:projectId/automations/:id/rotate-secret',
    {
      schema: {
        summary: "Rotate a code-change automation's webhook secret",
        description:
          "Replaces the webhook secret with a new one, shown only in this answer. For 24 hours (previousSecretExpiresAt) webhooks signed with the replaced secret are still accepted, so the host's settings can be changed afterwards without refusing deliveries. 409 for an automation without a webhook secret (not code_change). See docs/automations.md.",
        tags,
        security,
        params: AutomationParams,
        response: {
          200: ok('AutomationWithSecret', 'The automation, with its new webhook secret (shown once).'),
          ...errorResponses,
          409: Type.Ref('Error', {
            description: 'The automation has no webhook secret (its trigger is not code_change).',
          }),
        },
      },
    },
    (request) => automations.rotateSecret(request.params.projectId, request.params.id),
  );

  app.get(
    '/v2/agent/:projectId/automations/:id/runs',
    {
      schema: {
        summary: "List an automation's runs",
        description: 'Newest first, a page at a time: status, job, pull request, and why.',
        tags,
        security,
        params: AutomationParams,
        querystring: RunListQuery,
        response: { 200: ok('AutomationRunList', 'A page of runs.'), ...errorResponses },
      },
    },
    (request) =>
      automations.runs(request.params.projectId, request.params.id, {
        limit: request.query.limit ?? 20,
        cursor: request.query.cursor,
      }),
  );

  app.post(
    '/v2/agent/:projectId/automations/:id/trigger',
    {
      schema: {
        summary: 'Run an automation now',
        description:
          'Starts a run at once, with optional extra context. Over the daily limit: 429, and the refused run is listed as rate_limited. A disabled automation answers 409.',
        tags,
        security,
        params: AutomationParams,
        body: triggerBody(maxPromptLength),
        response: {
          202: ok('TriggeredRun', 'The run and its job.'),
          ...bodyErrorResponses,
          409: error(
            'Conflict: the automation is disabled (enable it first), or another process claimed the run at the same moment (try again).',
          ),
        },
      },
      // The body is optional: no body is no extra context.
      preValidation: (request, _reply, done) => {
        request.body ??= {};
        done();
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(await automations.trigger(request.params.projectId, request.params.id, request.body.context)),
  );
};
