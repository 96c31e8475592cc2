import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { KeyPrincipal } from '../../domain/access/principal.ts';
import { DomainError } from '../../domain/errors.ts';
import type { KeyService } from '../../domain/keys/key-service.ts';
import type { ReviewService } from '../../domain/review/review-service.ts';
import type { SessionService } from '../../domain/sessions/session-service.ts';
import { bearerKey, requirePermission } from '../auth.ts';
import { STATUS_BY_KIND } from '../errors.ts';
import { errorResponses, ok } from '../schemas.ts';
import { messagePage, reviewPage, signInPage } from './review-pages.ts';

export interface ReviewRoutesOptions {
  review: ReviewService;
  keys: KeyService;
  sessions: SessionService;
  /** DOCWRIGHT_PUBLIC_URL: an https URL makes the session cookie Secure; its host is accepted as Origin. */
  publicUrl: string;
}

const COOKIE = 'docwright_session';
const JobIdParams = Type.Object({
  jobId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}$', description: 'The job id.' }),
});
const tags = ['Local review'];
const security = [{ bearerAuth: [] }];

// Only inline styles, no scripts, forms post to this origin only, never framed.
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

type Caller = { principal: KeyPrincipal; via: 'header' | 'session' };

/**
 * The local code host's review page: `GET /review/:jobId` shows the job branch's commits and
 * diff against the base branch, `POST /review/:jobId/merge` merges it (refusing on conflict).
 *
 * Only an admin key of the job's project may review. Scripts send it as
 * `Authorization: Bearer <key>` and get JSON; a person types it once into the sign-in form,
 * which opens a browser session: the cookie holds a random session token (stored hashed,
 * expiring, revocable by signing out, ended when the key is revoked), never the key. Posts
 * made with the cookie must come from this site (Sec-Fetch-Site / Origin) on top of SameSite.
 */
export const reviewRoutes: FastifyPluginAsyncTypebox<ReviewRoutesOptions> = async (app, options) => {
  const { review, keys, sessions, publicUrl } = options;
  const secureCookie = publicUrl.startsWith('https:') ? '; Secure' : '';

  // Form posts, in this plugin only: the API elsewhere speaks JSON alone.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 8192 },
    (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    },
  );
  app.addHook('onSend', async (_request, reply) => {
    reply.headers(SECURITY_HEADERS);
  });

  /** The caller by bearer key (errors are thrown) or by session cookie (null when there is none). */
  async function caller(request: FastifyRequest): Promise<Caller | null> {
    const key = bearerKey(request);
    if (key !== null) {
      const principal = await keys.authenticate(key);
      requirePermission(principal, 'write');
      return { principal, via: 'header' };
    }
    const token = readCookie(request.headers.cookie, COOKIE);
    if (!token) return null;
    try {
      const principal = await sessions.authenticate(token);
      requirePermission(principal, 'write');
      return { principal, via: 'session' };
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'unauthenticated') return null;
      throw error;
    }
  }

  function signedOut(request: FastifyRequest, reply: FastifyReply, jobId: string) {
    if (!acceptsHtml(request)) {
      throw new DomainError(
        'unauthenticated',
        'Missing Authorization header: send "Authorization: Bearer <admin API key>"',
      );
    }
    return sendHtml(reply, 401, signInPage(jobId, null));
  }

  app.get(
    '/review/:jobId',
    {
      schema: {
        summary: "Review a local job's changes",
        description:
          "For a project whose repository is on this machine: the job branch's commits, changed files and diff against its base branch. Needs an admin key of the job's project. Browsers (Accept: text/html) get the review page, with a sign-in form when no key is sent.",
        tags,
        security,
        params: JobIdParams,
        querystring: Type.Object({ merged: Type.Optional(Type.Literal('1')) }),
        response: { 200: ok('BranchReview', "The branch's review."), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { jobId } = request.params;
      const who = await caller(request);
      if (!who) return signedOut(request, reply, jobId);
      if (!acceptsHtml(request)) return review.describe(who.principal.projectId, jobId);
      try {
        const branch = await review.describe(who.principal.projectId, jobId);
        const notice = request.query.merged === '1' ? `Merged into ${branch.baseBranch}.` : null;
        return sendHtml(reply, 200, reviewPage(jobId, branch, { notice, signedIn: who.via === 'session' }));
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return sendHtml(
          reply,
          STATUS_BY_KIND[error.kind],
          messagePage('Cannot show this review', error.message),
        );
      }
    },
  );

  app.post(
    '/review/:jobId/merge',
    {
      schema: {
        summary: "Merge a local job's branch",
        description:
          "Merges the job branch into its base branch with a merge commit, in a scratch worktree; a checkout of the base branch on this machine is fast-forwarded. 409 when the branch conflicts, is already merged, or the base branch moved meanwhile. Needs an admin key of the job's project (or, from the review page, its session).",
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
    async (request, reply) => {
      const { jobId } = request.params;
      const who = await caller(request);
      if (!who) return signedOut(request, reply, jobId);
      const { projectId } = who.principal;
      if (who.via === 'header') {
        const result = await review.merge(projectId, jobId);
        return { merged: true as const, sha: result.sha };
      }
      if (!sameSite(request, publicUrl))
        return sendHtml(reply, 403, messagePage('Refused', 'Merges must come from this page.'));
      try {
        await review.merge(projectId, jobId);
        return reply.redirect(`/review/${encodeURIComponent(jobId)}?merged=1`, 303);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        if (error.kind !== 'conflict') {
          return sendHtml(reply, STATUS_BY_KIND[error.kind], messagePage('Cannot merge', error.message));
        }
        const branch = await review.describe(projectId, jobId);
        return sendHtml(reply, 409, reviewPage(jobId, branch, { problem: error.message, signedIn: true }));
      }
    },
  );

  app.post(
    '/review/:jobId/sign-in',
    {
      // The sign-in form's one field; a post without it gets the form again, not a JSON error.
      schema: { hide: true, params: JobIdParams, body: Type.Object({ key: Type.Optional(Type.String()) }) },
    },
    async (request, reply) => {
      const { jobId } = request.params;
      if (!sameSite(request, publicUrl))
        return sendHtml(reply, 403, messagePage('Refused', 'Sign in from this site.'));
      const key = request.body.key?.trim() ?? '';
      let principal: KeyPrincipal;
      try {
        principal = await keys.authenticate(key);
      } catch (error) {
        if (error instanceof DomainError && error.kind === 'unauthenticated') {
          return sendHtml(reply, 401, signInPage(jobId, 'That key was not accepted.'));
        }
        throw error;
      }
      if (principal.scope !== 'admin') {
        return sendHtml(
          reply,
          403,
          signInPage(
            jobId,
            `That is an API key with scope "${principal.scope}"; reviewing needs an admin key.`,
          ),
        );
      }
      try {
        await review.check(principal.projectId, jobId);
      } catch (error) {
        if (error instanceof DomainError && error.kind === 'not_found') {
          return sendHtml(
            reply,
            404,
            signInPage(jobId, `${error.message}: is that a key of this job's project?`),
          );
        }
        throw error;
      }
      const session = await sessions.open(principal);
      reply.header(
        'set-cookie',
        `${COOKIE}=${session.token}; Path=/review; HttpOnly; SameSite=Strict; Max-Age=${sessions.ttlSeconds}${secureCookie}`,
      );
      return reply.redirect(`/review/${encodeURIComponent(jobId)}`, 303);
    },
  );

  app.post('/review/sign-out', { schema: { hide: true } }, async (request, reply) => {
    if (!sameSite(request, publicUrl))
      return sendHtml(reply, 403, messagePage('Refused', 'Sign out from this site.'));
    const token = readCookie(request.headers.cookie, COOKIE);
    if (token) await sessions.revoke(token);
    reply.header(
      'set-cookie',
      `${COOKIE}=; Path=/review; HttpOnly; SameSite=Strict; Max-Age=0${secureCookie}`,
    );
    return sendHtml(
      reply,
      200,
      messagePage('Signed out', 'This browser is signed out of the review pages.', 'ok'),
    );
  });
};

function acceptsHtml(request: FastifyRequest): boolean {
  return /text\/html/.test(request.headers.accept ?? '');
}

/**
 * A browser post from another site is refused even before SameSite is considered. Browsers
 * send Sec-Fetch-Site; older ones only Origin, compared with the Host the request came to or
 * the public URL (a reverse proxy may rewrite Host).
 */
function sameSite(request: FastifyRequest, publicUrl: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  if (!URL.canParse(origin)) return false;
  const { host } = new URL(origin);
  return host === request.headers.host || (URL.canParse(publicUrl) && new URL(publicUrl).host === host);
}

function readCookie(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return null;
    }
  }
  return null;
}

function sendHtml(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(html);
}
