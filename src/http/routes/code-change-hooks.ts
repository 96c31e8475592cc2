import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { CodeChangeReceiver } from '../../domain/automations/code-change/code-change-receiver.ts';
import { ProjectParams } from '../schemas.ts';

export interface CodeChangeHookRoutesOptions {
  receiver: CodeChangeReceiver;
}

/** Deliveries larger than this are refused (413). GitHub's pull_request payloads are tens of kB. */
export const HOOK_BODY_LIMIT_BYTES = 5 * 1024 * 1024;

const tags = ['Automations'];
const error = (description: string) => Type.Ref('Error', { description });
const HookRuns = Type.Object({
  runs: Type.Array(
    Type.Object({
      automationId: Type.String(),
      runId: Type.String(),
      jobId: Type.Union([Type.String(), Type.Null()]),
      status: Type.Enum(['started', 'followed_up', 'duplicate', 'rate_limited'], {
        description:
          'started: a new job; followed_up: a turn on the job whose pull request is still open; duplicate: this pull request and merge commit started the run before; rate_limited: over the daily limit.',
      }),
    }),
  ),
  reason: Type.Optional(Type.String({ description: 'Why nothing (new) ran.' })),
});
// The body is read as bytes and not validated by schema: the signature is over those bytes.
const RawPayload = Type.Unsafe<Buffer>({
  type: 'object',
  description:
    "The host's event payload as it sends it (JSON; GitHub may send it form-encoded as payload=…). Only pull_request (GitHub) and Merge Request Hook (GitLab) events start runs.",
});

/**
 * `POST /v1/hooks/{github,gitlab}/{projectId}`: code hosts' webhooks for code-change
 * automations. No API key: the signature is the credential (GitHub's X-Hub-Signature-256,
 * GitLab's X-Gitlab-Token, with an automation's webhook secret). An unknown project answers
 * exactly as a wrong signature does (401), so the route tells nobody which projects exist.
 */
export const codeChangeHookRoutes: FastifyPluginAsyncTypebox<CodeChangeHookRoutesOptions> = async (
  app,
  { receiver },
) => {
  // Here only, bodies stay bytes: the HMAC is over the body exactly as sent.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    ['application/json', 'application/x-www-form-urlencoded'],
    { parseAs: 'buffer', bodyLimit: HOOK_BODY_LIMIT_BYTES },
    (_request, body, done) => done(null, body),
  );

  const responses = {
    200: Type.Object(HookRuns.properties, {
      description: 'Nothing new ran (a ping, another event, a filter, a redelivery): `reason` says why.',
    }),
    202: Type.Object(HookRuns.properties, {
      description: 'Runs started (or followed up an open documentation pull request).',
    }),
    400: error('The payload is not the documented event (the error names the field).'),
    401: error('Unsigned, mis-signed, or no code-change automation of this project for this host.'),
    408: error('The payload did not arrive in time; the connection is closed.'),
    413: error('The payload is larger than 5 MiB.'),
    415: error('Content-Type is not application/json (or form-encoded, GitHub).'),
    429: error(
      'Too many requests from this address are still sending their bodies; the connection is closed (Retry-After says when to try again).',
    ),
    500: error('Internal error; quote the requestId when reporting it.'),
    502: error(
      "The host's API could not be read for the pull request's files; nothing ran, redeliver later.",
    ),
    503: error('Storage is unavailable for a moment; redeliver later (Retry-After says when).'),
  };

  for (const provider of ['github', 'gitlab'] as const) {
    const signature =
      provider === 'github'
        ? 'X-Hub-Signature-256 (HMAC-SHA256 of the raw body with the webhook secret)'
        : 'X-Gitlab-Token (the webhook secret)';
    app.post(
      `/v1/hooks/${provider}/:projectId`,
      {
        schema: {
          summary: `Receive a ${provider === 'github' ? 'GitHub' : 'GitLab'} webhook (code-change automations)`,
          description: `Point the ${provider === 'github' ? 'repository' : 'project'}'s webhook here with the automation's webhook secret. Verified by ${signature}; a merged ${provider === 'github' ? 'pull request' : 'merge request'} into a watched repository, matching an automation's filters, starts a run of it. See docs/automations.md.`,
          tags,
          security: [],
          params: ProjectParams,
          body: RawPayload,
          response: responses,
        },
      },
      async (request, reply) => {
        const outcome = await receiver.receive({
          provider,
          projectId: request.params.projectId,
          headers: request.headers,
          rawBody: request.body,
        });
        if (outcome.status === 502)
          return reply.code(502).send({ error: outcome.error, requestId: request.id });
        const { status, ...body } = outcome;
        return reply.code(status).send(body);
      },
    );
  }
};
