import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/domain/clock.ts';
import { JobEventFeed } from '../../../src/domain/jobs/job-event-feed.ts';
import { JobEventLog } from '../../../src/domain/jobs/job-events.ts';
import { JobService } from '../../../src/domain/jobs/job-service.ts';
import { WorkSignal } from '../../../src/domain/jobs/work-signal.ts';
import { KeyService } from '../../../src/domain/keys/key-service.ts';
import { ProjectService } from '../../../src/domain/projects/project-service.ts';
import { ReviewService } from '../../../src/domain/review/review-service.ts';
import { SessionService } from '../../../src/domain/sessions/session-service.ts';
import { installErrorHandling } from '../../../src/http/errors.ts';
import { reviewRoutes } from '../../../src/http/routes/review.ts';
import { addSharedSchemas } from '../../../src/http/schemas.ts';
import { LocalReview } from '../../../src/integrations/codehosts/local-review.ts';
import { GitWorkspaces } from '../../../src/integrations/git/workspaces.ts';
import type { Storage } from '../../../src/storage/database.ts';
import { createRepository, git, tempDir, writeFiles } from '../../helpers/git-repos.ts';
import { openTestStorage } from '../../helpers/storage.ts';

const logger = pino({ level: 'silent' });
let cleanups: (() => Promise<void> | void)[] = [];
let root: string;
let repo: string;
let baseUrl: string;
let key: string;
let otherKey: string;
let projects: ProjectService;
let jobs: JobService;
let projectId: string;
let workspaces: GitWorkspaces;
let keys: KeyService;
let ingestKey: string;
let keyId: string;
let storage: Storage;
// The sessions' clock, moved forward to test expiry.
let now = Date.now();
const clock: Clock = () => new Date(now);
const TTL_SECONDS = 8 * 3600;

beforeEach(async () => {
  const dir = tempDir();
  root = dir.dir;
  cleanups.push(dir.cleanup);
  const db = await openTestStorage();
  cleanups.push(db.cleanup);
  storage = db.storage;
  now = Date.now();
  repo = path.join(root, 'docs');
  createRepository(repo, { 'guide.md': '# Guide\n\nOld text.\n', 'index.md': '# Home\n' });

  projects = new ProjectService(storage, clock);
  keys = new KeyService(storage, clock);
  const events = new JobEventLog(storage);
  jobs = new JobService({
    storage,
    clock,
    defaultModel: null,
    workSignal: new WorkSignal(),
    events,
    feed: new JobEventFeed({ log: events }),
  });
  const project = await projects.create({ name: 'Local docs', repository: repo });
  projectId = project.id;
  const created = await keys.create(project.id, 'review');
  key = created.key;
  keyId = created.info.id;
  ingestKey = (await keys.create(project.id, 'docs server', 'ingest')).key;
  const other = await projects.create({ name: 'Other', repository: path.join(root, 'other') });
  otherKey = (await keys.create(other.id, 'other')).key;
  workspaces = new GitWorkspaces({
    dataDir: path.join(root, 'data'),
    logger,
    author: { name: 'Docwright', email: 'bot@docwright.test' },
  });

  const app = Fastify({ loggerInstance: logger as FastifyBaseLogger });
  installErrorHandling(app);
  addSharedSchemas(app);
  await app.register(reviewRoutes, {
    review: new ReviewService(
      storage,
      new LocalReview({
        tempDir: path.join(root, 'data', 'tmp'),
        author: { name: 'Docwright', email: 'bot@docwright.test' },
        logger,
      }),
    ),
    keys,
    sessions: new SessionService(storage, clock, { ttlSeconds: TTL_SECONDS }),
    publicUrl: 'http://docs.internal:8080',
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(() => app.close());
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/** Creates a job and pushes a change to its branch the way the agent does. */
async function jobWithChange(files: Record<string, string>, message: string) {
  const job = await jobs.create(await projects.get(projectId), 'Improve the guide');
  const req = {
    projectId,
    jobId: job.id,
    repository: repo,
    baseBranch: 'main',
    branch: job.source.ref,
    credentials: null,
  };
  const { dir } = await workspaces.prepare(req);
  for (const [file, content] of Object.entries(files)) writeFileSync(path.join(dir, file), content);
  await workspaces.commitAll(dir, message);
  await workspaces.push(req, dir);
  return job;
}

/** A browser's GET (asks for HTML) unless the headers say otherwise. */
function get(url: string, headers: Record<string, string> = {}) {
  return fetch(`${baseUrl}${url}`, { headers: { accept: 'text/html', ...headers }, redirect: 'manual' });
}
function post(url: string, headers: Record<string, string> = {}, body?: string) {
  return fetch(`${baseUrl}${url}`, {
    method: 'POST',
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body } : {}),
    redirect: 'manual',
  });
}
async function signIn(jobId: string, withKey = key): Promise<string> {
  const res = await post(
    `/review/${jobId}/sign-in`,
    { 'sec-fetch-site': 'same-origin' },
    `key=${encodeURIComponent(withKey)}`,
  );
  expect(res.status).toBe(303);
  const cookie = res.headers.get('set-cookie') ?? '';
  expect(cookie).toMatch(
    /^docwright_session=dws_[\w-]{43}; Path=\/review; HttpOnly; SameSite=Strict; Max-Age=28800$/,
  );
  return cookie.split(';')[0] ?? '';
}

describe('local review page', () => {
  it('asks for a key first and shows nothing of the change without one', async () => {
    const job = await jobWithChange({ 'guide.md': '# Guide\n\nSecret-ish new text.\n' }, 'Rewrite the guide');
    const res = await get(`/review/${job.id}`);
    expect(res.status).toBe(401);
    const html = await res.text();
    expect(html).toContain(`action="/review/${job.id}/sign-in"`);
    expect(html).not.toContain('Secret-ish');
    const wrong = await post(`/review/${job.id}/sign-in`, {}, 'key=dw_not_a_real_key');
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('That key was not accepted.');
    expect(wrong.headers.get('set-cookie')).toBeNull();
  });

  it('shows commits, files and an escaped diff, with strict security headers', async () => {
    const job = await jobWithChange(
      { 'guide.md': '# Guide\n\nNew text <script>alert("x")</script> & more.\n', 'new.md': '# New page\n' },
      'Rewrite the guide <b>now</b>',
    );
    const cookie = await signIn(job.id);
    const res = await get(`/review/${job.id}`, { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const html = await res.text();
    expect(html).toContain(`<code>${job.source.ref}</code> → <code>main</code>`);
    expect(html).toContain('Rewrite the guide &lt;b&gt;now&lt;/b&gt;');
    expect(html).toContain('+New text &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more.');
    expect(html).not.toContain('<script>');
    expect(html).toContain('<code>new.md</code></td><td>added</td>');
    expect(html).toContain(`<form method="post" action="/review/${job.id}/merge">`);
  });

  it('answers scripts with JSON when the key comes as a Bearer header', async () => {
    const job = await jobWithChange({ 'guide.md': 'changed\n' }, 'Change');
    const res = await get(`/review/${job.id}`, { authorization: `Bearer ${key}`, accept: '*/*' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { state: string; files: { path: string }[]; commits: unknown[] };
    expect(body).toMatchObject({ state: 'open', files: [{ path: 'guide.md' }] });
    expect(body.commits).toHaveLength(1);
    expect((await get(`/review/${job.id}`, { authorization: 'Bearer dw_nope' })).status).toBe(401);
    // A key of another project sees nothing.
    expect((await get(`/review/${job.id}`, { authorization: `Bearer ${otherKey}` })).status).toBe(404);
  });

  it('merges from the page, refusing a cross-site post, and the base branch gets the change', async () => {
    const job = await jobWithChange({ 'guide.md': '# Guide\n\nMerged text.\n' }, 'Rewrite the guide');
    const cookie = await signIn(job.id);
    const before = git(repo, 'rev-parse', 'main').trim();

    const forged = await post(`/review/${job.id}/merge`, { cookie, 'sec-fetch-site': 'cross-site' });
    expect(forged.status).toBe(403);
    const forgedOrigin = await post(`/review/${job.id}/merge`, { cookie, origin: 'https://evil.example' });
    expect(forgedOrigin.status).toBe(403);
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(before);
    // Merging is a POST: GET on the merge URL does nothing.
    expect((await get(`/review/${job.id}/merge`, { cookie })).status).toBe(404);

    const merged = await post(`/review/${job.id}/merge`, { cookie, 'sec-fetch-site': 'same-origin' });
    expect(merged.status).toBe(303);
    expect(merged.headers.get('location')).toBe(`/review/${job.id}?merged=1`);
    expect(git(repo, 'show', 'main:guide.md')).toBe('# Guide\n\nMerged text.\n');
    expect(git(repo, 'status', '--porcelain')).toBe('');

    const page = await (await get(`/review/${job.id}?merged=1`, { cookie })).text();
    expect(page).toContain('Merged into main.');
    expect(page).toContain('Everything on this branch is in main.');
  });

  it('refuses a conflicting merge, by page and by script, and changes nothing', async () => {
    const job = await jobWithChange({ 'guide.md': '# Guide\n\nBranch text.\n' }, 'Branch edit');
    writeFiles(repo, { 'guide.md': '# Guide\n\nMain text.\n' });
    git(repo, 'commit', '--quiet', '-am', 'Conflicting edit on main');
    const before = git(repo, 'rev-parse', 'main').trim();

    const api = await post(`/review/${job.id}/merge`, { authorization: `Bearer ${key}` });
    expect(api.status).toBe(409);
    expect(((await api.json()) as { error: string }).error).toContain('conflicts with main in guide.md');

    const cookie = await signIn(job.id);
    const page = await post(`/review/${job.id}/merge`, { cookie, 'sec-fetch-site': 'same-origin' });
    expect(page.status).toBe(409);
    const html = await page.text();
    expect(html).toContain('<div class="box err">Cannot merge: &quot;');
    expect(html).toContain('+Branch text.');
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(before);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('says when the job has pushed nothing yet, and 404s for unknown jobs', async () => {
    const job = await jobs.create(await projects.get(projectId), 'Just a question');
    const cookie = await signIn(job.id);
    expect(await (await get(`/review/${job.id}`, { cookie })).text()).toContain(
      'has not pushed any changes yet',
    );
    const missing = await get('/review/job_unknown', { cookie });
    expect(missing.status).toBe(404);
    expect((await get('/review/..%2Fetc', { cookie })).status).toBe(400);
  });

  it('refuses an ingestion key by header, by the sign-in form and for merges, and merges nothing', async () => {
    const job = await jobWithChange({ 'guide.md': '# Guide\n\nIngest must not merge this.\n' }, 'Edit');
    const before = git(repo, 'rev-parse', 'main').trim();
    const bearer = { authorization: `Bearer ${ingestKey}`, accept: 'application/json' };

    const read = await get(`/review/${job.id}`, bearer);
    expect(read.status).toBe(403);
    expect(((await read.json()) as { error: string }).error).toContain('scope "ingest"');
    expect((await post(`/review/${job.id}/merge`, bearer)).status).toBe(403);

    const form = await post(
      `/review/${job.id}/sign-in`,
      { 'sec-fetch-site': 'same-origin' },
      `key=${encodeURIComponent(ingestKey)}`,
    );
    expect(form.status).toBe(403);
    expect(await form.text()).toContain('reviewing needs an admin key');
    expect(form.headers.get('set-cookie')).toBeNull();
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(before);
  });

  it('keeps a random session token in the cookie, never the key, and stores only its hash', async () => {
    const job = await jobWithChange({ 'guide.md': 'changed\n' }, 'Change');
    const cookie = await signIn(job.id);
    const token = cookie.slice('docwright_session='.length);
    expect(token).not.toContain(key);
    expect(token).not.toContain(key.slice(3, 20));
    const rows = await storage.db.selectFrom('sessions').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0]).toMatchObject({ project_id: projectId, api_key_id: keyId, revoked_at: null });
    // Two sign-ins are two sessions with different tokens.
    expect(await signIn(job.id)).not.toBe(cookie);
  });

  it('ends the session on sign-out, on key revocation and on expiry', async () => {
    const job = await jobWithChange({ 'guide.md': 'changed\n' }, 'Change');
    const signedIn = async (cookie: string) => (await get(`/review/${job.id}`, { cookie })).status;

    const first = await signIn(job.id);
    expect(await signedIn(first)).toBe(200);
    const page = await (await get(`/review/${job.id}`, { cookie: first })).text();
    expect(page).toContain('action="/review/sign-out"');
    const forged = await post('/review/sign-out', { cookie: first, 'sec-fetch-site': 'cross-site' });
    expect(forged.status).toBe(403);
    expect(await signedIn(first)).toBe(200);
    const out = await post('/review/sign-out', { cookie: first, 'sec-fetch-site': 'same-origin' });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^docwright_session=; Path=\/review;.*Max-Age=0/);
    expect(await signedIn(first)).toBe(401);

    const second = await signIn(job.id);
    now += (TTL_SECONDS - 60) * 1000;
    expect(await signedIn(second)).toBe(200);
    now += 120 * 1000;
    expect(await signedIn(second)).toBe(401);

    const third = await signIn(job.id);
    expect(await signedIn(third)).toBe(200);
    await keys.revoke(keyId);
    expect(await signedIn(third)).toBe(401);
  });
});
