import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobEventFeed } from '../../../src/domain/jobs/job-event-feed.ts';
import { JobEventLog } from '../../../src/domain/jobs/job-events.ts';
import { JobService } from '../../../src/domain/jobs/job-service.ts';
import { WorkSignal } from '../../../src/domain/jobs/work-signal.ts';
import { KeyService } from '../../../src/domain/keys/key-service.ts';
import { ProjectService } from '../../../src/domain/projects/project-service.ts';
import { ReviewService } from '../../../src/domain/review/review-service.ts';
import { clientIpResolver } from '../../../src/http/client-ip.ts';
import { installErrorHandling } from '../../../src/http/errors.ts';
import { reviewRoutes } from '../../../src/http/routes/review.ts';
import { addSharedSchemas } from '../../../src/http/schemas.ts';
import { LocalReview } from '../../../src/integrations/codehosts/local-review.ts';
import { GitWorkspaces } from '../../../src/integrations/git/workspaces.ts';
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
const clock = () => new Date();

beforeEach(async () => {
  const dir = tempDir();
  root = dir.dir;
  cleanups.push(dir.cleanup);
  const db = await openTestStorage();
  cleanups.push(db.cleanup);
  const { storage } = db;
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
    clientIp: clientIpResolver([]),
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

/** A script's request: the admin key as a bearer header, JSON back. */
function call(method: 'GET' | 'POST', url: string, headers: Record<string, string> = {}) {
  return fetch(`${baseUrl}${url}`, {
    method,
    headers: { authorization: `Bearer ${key}`, accept: 'application/json', ...headers },
    redirect: 'manual',
  });
}

describe('local review (scripts with an admin key; browsers go to the dashboard)', () => {
  it('answers scripts with JSON: commits, files and the diff', async () => {
    const job = await jobWithChange(
      { 'guide.md': '# Guide\n\nNew text <script>alert("x")</script> & more.\n', 'new.md': '# New page\n' },
      'Rewrite the guide',
    );
    const res = await call('GET', `/review/${job.id}`, { accept: '*/*' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      branch: string;
      baseBranch: string;
      state: string;
      files: { path: string; status: string }[];
      commits: { subject: string }[];
      diff: string;
    };
    expect(body).toMatchObject({ branch: job.source.ref, baseBranch: 'main', state: 'open' });
    expect(body.files).toEqual([
      expect.objectContaining({ path: 'guide.md', status: 'modified' }),
      expect.objectContaining({ path: 'new.md', status: 'added' }),
    ]);
    expect(body.commits.map((c) => c.subject)).toEqual(['Rewrite the guide']);
    expect(body.diff).toContain('+New text <script>alert("x")</script> & more.');
  });

  it('sends a browser to the job page of the dashboard, and shows it nothing without a key', async () => {
    const job = await jobWithChange({ 'guide.md': '# Guide\n\nSecret-ish new text.\n' }, 'Rewrite the guide');
    const res = await fetch(`${baseUrl}/review/${job.id}`, {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/jobs/${job.id}`);
    expect(await res.text()).not.toContain('Secret-ish');
    // A script without a key: 401 JSON.
    const script = await fetch(`${baseUrl}/review/${job.id}`, { headers: { accept: 'application/json' } });
    expect(script.status).toBe(401);
    expect(((await script.json()) as { error: string }).error).toMatch(
      /Authorization: Bearer <admin API key>/,
    );
    // The key sign-in form and its session are gone.
    const signIn = await fetch(`${baseUrl}/review/${job.id}/sign-in`, { method: 'POST' });
    expect(signIn.status).toBe(404);
    expect((await fetch(`${baseUrl}/review/sign-out`, { method: 'POST' })).status).toBe(404);
  });

  it('checks the key: unknown 401, another project 404', async () => {
    const job = await jobWithChange({ 'guide.md': 'changed\n' }, 'Change');
    expect((await call('GET', `/review/${job.id}`, { authorization: 'Bearer dw_nope' })).status).toBe(401);
    // A key of another project sees nothing.
    expect((await call('GET', `/review/${job.id}`, { authorization: `Bearer ${otherKey}` })).status).toBe(
      404,
    );
  });

  it('merges, and the base branch gets the change', async () => {
    const job = await jobWithChange({ 'guide.md': '# Guide\n\nMerged text.\n' }, 'Rewrite the guide');
    // Merging is a POST: GET on the merge URL does nothing.
    expect((await call('GET', `/review/${job.id}/merge`)).status).toBe(404);
    const merged = await call('POST', `/review/${job.id}/merge`);
    expect(merged.status).toBe(200);
    const { sha } = (await merged.json()) as { merged: true; sha: string };
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(sha);
    expect(git(repo, 'show', 'main:guide.md')).toBe('# Guide\n\nMerged text.\n');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    const after = (await (await call('GET', `/review/${job.id}`)).json()) as { state: string };
    expect(after.state).toBe('merged');
    expect((await call('POST', `/review/${job.id}/merge`)).status).toBe(409);
  });

  it('refuses a conflicting merge and changes nothing', async () => {
    const job = await jobWithChange({ 'guide.md': '# Guide\n\nBranch text.\n' }, 'Branch edit');
    writeFiles(repo, { 'guide.md': '# Guide\n\nMain text.\n' });
    git(repo, 'commit', '--quiet', '-am', 'Conflicting edit on main');
    const before = git(repo, 'rev-parse', 'main').trim();

    const api = await call('POST', `/review/${job.id}/merge`);
    expect(api.status).toBe(409);
    expect(((await api.json()) as { error: string }).error).toContain('conflicts with main in guide.md');
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(before);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('says when the job has pushed nothing yet, and 404s for unknown jobs', async () => {
    const job = await jobs.create(await projects.get(projectId), 'Just a question');
    const pending = (await (await call('GET', `/review/${job.id}`)).json()) as { state: string };
    expect(pending.state).toBe('missing');
    expect((await call('GET', '/review/job_unknown')).status).toBe(404);
    expect((await call('GET', '/review/..%2Fetc')).status).toBe(400);
  });

  it('refuses an ingestion key, for reads and merges, and merges nothing', async () => {
    const job = await jobWithChange({ 'guide.md': '# Guide\n\nIngest must not merge this.\n' }, 'Edit');
    const before = git(repo, 'rev-parse', 'main').trim();
    const bearer = { authorization: `Bearer ${ingestKey}` };
    const read = await call('GET', `/review/${job.id}`, bearer);
    expect(read.status).toBe(403);
    expect(((await read.json()) as { error: string }).error).toContain('scope "ingest"');
    expect((await call('POST', `/review/${job.id}/merge`, bearer)).status).toBe(403);
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(before);
  });
});
