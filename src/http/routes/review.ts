import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { KeyPrincipal } from '../../domain/access/principal.ts';
import { DomainError } from '../../domain/errors.ts';
import type { KeyService } from '../../domain/keys/key-service.ts';
import type { ReviewService } from '../../domain/review/review-service.ts';
import { bearerKey, requirePermission } from '../auth.ts';
import type { ClientIp } from '../client-ip.ts';
import { errorResponses, ok } from '../schemas.ts';

export interface ReviewRoutesOptions {
  review: ReviewService;
  keys: KeyService;
  /** The caller's address, for keys limited to some addresses. */
  clientIp: ClientIp;
}

const JobIdParams = Type.Object({
  jobId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}$', description: 'The job id.' }),
});
const tags = ['Local review'];
const security = [{ bearerAuth: [] }];

/**
 * The local code host's review, for scripts: `GET /review/:jobId` gives the job branch's
 * commits and diff against the base branch, `POST /review/:jobId/merge` merges it (refusing on
 * conflict), with an admin key of the job's project. A job's `prLink` points here; a browser
 * opening it is sent to the job's page in the dashboard, where people review and merge.
 */
export const reviewRoutes: FastifyPluginAsyncTypebox<ReviewRoutesOptions> = async (app, options) => {
  const { review, keys, clientIp } = options;

  async function caller(request: FastifyRequest): Promise<KeyPrincipal> {
    const key = bearerKey(request);
    if (key === null) {
      throw new DomainError(
        'unauthenticated',
        'Missing Authorization header: send "Authorization: Bearer <admin API key>", or open this page in a browser to review it in the dashboard',
      );
    }
    const principal = await keys.authenticate(key, { clientIp: clientIp(request) });
    requirePermission(principal, 'write');
    return principal;
  }

  app.get(
    '/review/:jobId',
    {
      schema: {
        summary: "Review a local job's changes",
        description:
          "For a project whose repository is on this machine: the job branch's commits, changed files and diff against its base branch. Needs an admin key of the job's project. A browser (Accept: text/html, no key) is redirected (303) to the job's page in the dashboard.",
        tags,
        security,
        params: JobIdParams,
        response: {
          200: ok('BranchReview', "The branch's review."),
          303: Type.Null({ description: "To the job's page in the dashboard (Location: /jobs/{jobId})." }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const { jobId } = request.params;
      if (request.headers.authorization === undefined && acceptsHtml(request)) {
        return reply.redirect(`/jobs/${encodeURIComponent(jobId)}`, 303);
      }
      const principal = await caller(request);
      return review.describe(principal.projectId, jobId);
    },
  );

  app.post(
    '/review/:jobId/merge',
    {
      schema: {
        summary: "Merge a local job's branch",
        description:
          "Merges the job branch into its base branch with a merge commit, in a scratch worktree; a checkout of the base branch on this machine is fast-forwarded. 409 when the branch conflicts, is already merged, or the base branch moved meanwhile. Needs an admin key of the job's project.",
        tags,
        security,
        params: JobIdParams,
        response: {
          200: Type.Object(
            { merged: Type.Literal(true), sha: Type.String({ description: 'The merge commit.' }) },
            { description: 'Merged.' },
          ),
          409: Type.Ref('Error', { description: 'Conflict, already merged, or the base branch moved.' }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const principal = await caller(request);
      const result = await review.merge(principal.projectId, request.params.jobId);
      return { merged: true as const, sha: result.sha };
    },
  );
};

function acceptsHtml(request: FastifyRequest): boolean {
  return /text\/html/.test(request.headers.accept ?? '');
}
