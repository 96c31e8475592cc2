import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../domain/errors.ts';
import type { BranchReview, LocalReview, ReviewTarget } from '../../integrations/codehosts/local-review.ts';
import { STATUS_BY_KIND } from '../errors.ts';

/** What the review page needs to know about a job. */
export interface ReviewJob extends ReviewTarget {
  id: string;
}

export interface ReviewRoutesOptions {
  review: LocalReview;
  /** Resolves an admin API key to its project; throws DomainError('unauthenticated') when not valid. */
  authenticate(key: string): Promise<{ projectId: string }>;
  /** The job in that project when its changes are reviewed locally (its repository is a local path), else null. */
  findJob(projectId: string, jobId: string): Promise<ReviewJob | null>;
  /** DOCWRIGHT_PUBLIC_URL: an https URL makes the sign-in cookie Secure; its host is accepted as Origin. */
  publicUrl?: string;
}

const COOKIE = 'docwright_review';
const COOKIE_MAX_AGE = 8 * 3600;
const JOB_ID = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,100}$' } as const;
const PARAMS = { type: 'object', properties: { jobId: JOB_ID }, required: ['jobId'] } as const;

// Only inline styles, no scripts, forms post to this origin only, never framed.
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

type Auth = { projectId: string; via: 'header' | 'cookie' };

/**
 * The local code host's review page: `GET /review/:jobId` shows the job branch's commits and
 * diff against the base branch, `POST /review/:jobId/merge` merges it (refusing on conflict).
 *
 * Authentication: the project's admin API key, either as `Authorization: Bearer <key>`
 * (scripts; answers are JSON for merge) or, for a browser, typed once into the sign-in form,
 * which POSTs it and keeps it in an HttpOnly, SameSite=Strict cookie scoped to /review. The
 * key never goes in a URL, where it would land in history and logs. Merges by cookie must
 * come from this site (Sec-Fetch-Site / Origin checked) on top of SameSite.
 */
export const reviewRoutes: FastifyPluginAsync<ReviewRoutesOptions> = async (app, options) => {
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

  async function authenticate(request: FastifyRequest): Promise<Auth | null> {
    const header = request.headers.authorization;
    if (header) {
      const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
      if (!match?.[1])
        throw new DomainError('unauthenticated', 'Authorization header must be "Bearer <API key>"');
      return { ...(await options.authenticate(match[1])), via: 'header' };
    }
    const key = readCookie(request.headers.cookie, COOKIE);
    if (!key) return null;
    try {
      return { ...(await options.authenticate(key)), via: 'cookie' };
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'unauthenticated') return null;
      throw error;
    }
  }

  async function job(auth: Auth, jobId: string): Promise<ReviewJob> {
    const found = await options.findJob(auth.projectId, jobId);
    if (!found) throw new DomainError('not_found', `No locally reviewed job ${jobId} in this project`);
    return found;
  }

  app.get<{ Params: { jobId: string }; Querystring: { merged?: string } }>(
    '/review/:jobId',
    { schema: { hide: true, params: PARAMS } },
    async (request, reply) => {
      const { jobId } = request.params;
      const auth = await authenticate(request);
      if (!auth) return sendHtml(reply, 401, signInPage(jobId, null));
      try {
        const target = await job(auth, jobId);
        const review = await options.review.describe(target);
        if (auth.via === 'header' && !acceptsHtml(request)) return review;
        const notice = request.query.merged === '1' ? `Merged into ${target.baseBranch}.` : null;
        return sendHtml(reply, 200, reviewPage(jobId, review, notice, null));
      } catch (error) {
        if (auth.via === 'header' || !(error instanceof DomainError)) throw error;
        return sendHtml(
          reply,
          STATUS_BY_KIND[error.kind],
          messagePage('Cannot show this review', error.message),
        );
      }
    },
  );

  app.post<{ Params: { jobId: string }; Body: { key?: string } }>(
    '/review/:jobId/sign-in',
    { schema: { hide: true, params: PARAMS } },
    async (request, reply) => {
      const { jobId } = request.params;
      const key = typeof request.body?.key === 'string' ? request.body.key.trim() : '';
      if (!sameSite(request, options.publicUrl))
        return sendHtml(reply, 403, messagePage('Refused', 'Sign in from this site.'));
      try {
        await options.authenticate(key);
      } catch (error) {
        if (error instanceof DomainError && error.kind === 'unauthenticated') {
          return sendHtml(reply, 401, signInPage(jobId, 'That key was not accepted.'));
        }
        throw error;
      }
      const secure = options.publicUrl?.startsWith('https:') ? '; Secure' : '';
      reply.header(
        'set-cookie',
        `${COOKIE}=${encodeURIComponent(key)}; Path=/review; HttpOnly; SameSite=Strict; Max-Age=${COOKIE_MAX_AGE}${secure}`,
      );
      return reply.redirect(`/review/${encodeURIComponent(jobId)}`, 303);
    },
  );

  app.post<{ Params: { jobId: string } }>(
    '/review/:jobId/merge',
    { schema: { hide: true, params: PARAMS } },
    async (request, reply) => {
      const { jobId } = request.params;
      const auth = await authenticate(request);
      if (!auth) return sendHtml(reply, 401, signInPage(jobId, null));
      if (auth.via === 'header') {
        const result = await options.review.merge(await job(auth, jobId));
        return { merged: true, sha: result.sha };
      }
      if (!sameSite(request, options.publicUrl))
        return sendHtml(reply, 403, messagePage('Refused', 'Merges must come from this page.'));
      let target: ReviewJob | null = null;
      try {
        target = await job(auth, jobId);
        await options.review.merge(target);
        return reply.redirect(`/review/${encodeURIComponent(jobId)}?merged=1`, 303);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        if (target === null || error.kind !== 'conflict') {
          return sendHtml(reply, STATUS_BY_KIND[error.kind], messagePage('Cannot merge', error.message));
        }
        const review = await options.review.describe(target);
        return sendHtml(reply, 409, reviewPage(jobId, review, null, error.message));
      }
    },
  );
};

function acceptsHtml(request: FastifyRequest): boolean {
  return /text\/html/.test(request.headers.accept ?? '');
}

/**
 * A browser post from another site is refused even before SameSite is considered. Browsers
 * send Sec-Fetch-Site; older ones only Origin, compared with the Host the request came to or
 * the public URL (a reverse proxy may rewrite Host).
 */
function sameSite(request: FastifyRequest, publicUrl: string | undefined): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  if (!URL.canParse(origin)) return false;
  const { host } = new URL(origin);
  return (
    host === request.headers.host ||
    (publicUrl !== undefined && URL.canParse(publicUrl) && new URL(publicUrl).host === host)
  );
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

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1.5rem;color:#1f2328}
h1{font-size:1.4rem;margin:.2rem 0}h2{font-size:1.1rem;margin-top:1.8rem}
code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}
.muted{color:#59636e}.box{border:1px solid #d1d9e0;border-radius:6px;padding:.8rem 1rem;margin:.8rem 0}
.ok{background:#dafbe1;border-color:#4ac26b}.err{background:#ffebe9;border-color:#ff8182}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.25rem .5rem;border-bottom:1px solid #eef1f4}
pre.diff{border:1px solid #d1d9e0;border-radius:6px;overflow:auto;padding:0;margin:0}
pre.diff span{display:block;padding:0 .8rem;white-space:pre}
.add{background:#dafbe1}.del{background:#ffebe9}.hunk{background:#ddf4ff;color:#59636e}.meta{font-weight:600;background:#f6f8fa}
button{font:inherit;padding:.4rem 1rem;border-radius:6px;border:1px solid #1f883d;background:#1f883d;color:#fff;cursor:pointer}
input{font:inherit;padding:.35rem .5rem;width:24rem;max-width:100%}`;

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)} · Docwright</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

function signInPage(jobId: string, problem: string | null): string {
  const action = `/review/${encodeURIComponent(jobId)}/sign-in`;
  return layout(
    'Sign in',
    `<h1>Review ${escapeHtml(jobId)}</h1>
<p class="muted">Enter an admin API key of this job's project to see and merge its changes.</p>
${problem ? `<div class="box err">${escapeHtml(problem)}</div>` : ''}
<form method="post" action="${escapeHtml(action)}"><label>API key <input type="password" name="key" autocomplete="off" required></label> <button type="submit">Sign in</button></form>`,
  );
}

function messagePage(title: string, message: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1><div class="box err">${escapeHtml(message)}</div>`);
}

function reviewPage(
  jobId: string,
  review: BranchReview,
  notice: string | null,
  problem: string | null,
): string {
  const heading = `<h1>Review <code>${escapeHtml(review.branch)}</code> → <code>${escapeHtml(review.baseBranch)}</code></h1>
<p class="muted">Job ${escapeHtml(jobId)}</p>`;
  const banners = [
    notice ? `<div class="box ok">${escapeHtml(notice)}</div>` : '',
    problem ? `<div class="box err">${escapeHtml(problem)}</div>` : '',
  ].join('');
  if (review.state === 'missing') {
    return layout(
      'Review',
      `${heading}${banners}<div class="box">This job has not pushed any changes yet.</div>`,
    );
  }
  if (review.state === 'merged') {
    return layout(
      'Review',
      `${heading}${banners}<div class="box ok">Everything on this branch is in ${escapeHtml(review.baseBranch)}.</div>`,
    );
  }
  const commits = review.commits
    .map(
      (c) =>
        `<tr><td><code>${escapeHtml(c.sha.slice(0, 10))}</code></td><td>${escapeHtml(c.subject)}</td><td class="muted">${escapeHtml(c.author)}</td><td class="muted">${escapeHtml(c.date)}</td></tr>`,
    )
    .join('');
  const files = review.files
    .map((f) => {
      const name = f.oldPath ? `${f.oldPath} → ${f.path}` : f.path;
      const counts = f.additions === null ? 'binary' : `+${f.additions} −${f.deletions ?? 0}`;
      return `<tr><td><code>${escapeHtml(name)}</code></td><td>${escapeHtml(f.status)}</td><td class="muted">${escapeHtml(counts)}</td></tr>`;
    })
    .join('');
  const merge = `<form method="post" action="/review/${escapeHtml(encodeURIComponent(jobId))}/merge"><button type="submit">Merge into ${escapeHtml(review.baseBranch)}</button></form>`;
  return layout(
    `Review ${review.branch}`,
    `${heading}${banners}${merge}
<h2>Commits (${review.commits.length})</h2><table>${commits}</table>
<h2>Files changed (${review.files.length})</h2><table>${files}</table>
<h2>Diff</h2>${review.diffTruncated ? '<p class="muted">The diff is long; only its beginning is shown.</p>' : ''}
<pre class="diff">${renderDiff(review.diff)}</pre>`,
  );
}

function renderDiff(diff: string): string {
  return diff
    .split('\n')
    .map((line) => {
      const kind = line.startsWith('diff --git')
        ? 'meta'
        : line.startsWith('@@')
          ? 'hunk'
          : line.startsWith('+') && !line.startsWith('+++')
            ? 'add'
            : line.startsWith('-') && !line.startsWith('---')
              ? 'del'
              : '';
      return `<span${kind ? ` class="${kind}"` : ''}>${escapeHtml(line) || ' '}</span>`;
    })
    .join('');
}
