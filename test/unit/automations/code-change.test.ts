import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { changeContext } from '../../../src/domain/automations/code-change/change-summary.ts';
import { dedupeKeyFor } from '../../../src/domain/automations/code-change/dedupe-key.ts';
import {
  type MergedPullRequest,
  parseGitHubEvent,
  parseGitLabEvent,
} from '../../../src/domain/automations/code-change/events.ts';
import { pathFilter } from '../../../src/domain/automations/code-change/path-filters.ts';
import type { ChangedFile } from '../../../src/domain/automations/code-change/pull-request-changes.ts';
import {
  gitHubSignatureHeader,
  verifyGitHubSignature,
  verifyGitLabToken,
} from '../../../src/domain/automations/code-change/signature.ts';
import { matchesCodeChange } from '../../../src/domain/automations/trigger-input.ts';
import { DomainError } from '../../../src/domain/errors.ts';
import { gitHubMergedPayload, gitLabMergedPayload } from '../../helpers/code-change-hooks.ts';

describe('GitHub X-Hub-Signature-256', () => {
  const secret = "It's a Secret to Everybody";
  const body = Buffer.from('Hello, World!');

  it("matches GitHub's documented example", () => {
    // https://docs.github.com/webhooks/using-webhooks/validating-webhook-deliveries#testing-the-webhook-payload-validation
    const documented = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect(gitHubSignatureHeader(secret, body)).toBe(documented);
    expect(verifyGitHubSignature(secret, body, documented)).toBe(true);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['sha1 only', `sha1=${createHmac('sha1', secret).update(body).digest('hex')}`],
    ['another secret', gitHubSignatureHeader('another secret', body)],
    ['another body', gitHubSignatureHeader(secret, 'Hello, World?')],
    ['truncated', gitHubSignatureHeader(secret, body).slice(0, 40)],
    ['not hex', `sha256=${'z'.repeat(64)}`],
  ])('refuses a %s signature', (_what, header) => {
    expect(verifyGitHubSignature(secret, body, header)).toBe(false);
  });

  it('is over the raw bytes: the same JSON serialised again does not match', () => {
    const raw = Buffer.from('{"a": 1,  "b": 2}');
    const header = gitHubSignatureHeader(secret, raw);
    expect(verifyGitHubSignature(secret, raw, header)).toBe(true);
    expect(
      verifyGitHubSignature(secret, Buffer.from(JSON.stringify(JSON.parse(raw.toString()))), header),
    ).toBe(false);
  });
});

describe('GitLab X-Gitlab-Token', () => {
  it('accepts the exact token only', () => {
    expect(verifyGitLabToken('glsecret-1', 'glsecret-1')).toBe(true);
    expect(verifyGitLabToken('glsecret-1', 'glsecret-2')).toBe(false);
    expect(verifyGitLabToken('glsecret-1', 'glsecret-1 ')).toBe(false);
    expect(verifyGitLabToken('glsecret-1', '')).toBe(false);
    expect(verifyGitLabToken('glsecret-1', undefined)).toBe(false);
  });
});

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('GitHub events', () => {
  const headers = (event: string) => ({
    'x-github-event': event,
    'x-github-delivery': 'd-1',
    'content-type': 'application/json',
  });

  it('reads a merged pull request', () => {
    const payload = gitHubMergedPayload({
      repository: 'acme/api',
      number: 42,
      title: 'Add pagination',
      body: 'Adds `cursor`.',
      author: 'octocat',
      base: 'main',
      mergeCommitSha: 'a'.repeat(40),
      apiUrl: 'https://api.github.com',
    });
    expect(parseGitHubEvent(headers('pull_request'), json(payload))).toEqual({
      kind: 'merged',
      pullRequest: {
        provider: 'github',
        repository: 'acme/api',
        number: 42,
        url: 'https://github.com/acme/api/pull/42',
        title: 'Add pagination',
        description: 'Adds `cursor`.',
        author: 'octocat',
        authorId: null,
        mergeCommitSha: 'a'.repeat(40),
        baseBranch: 'main',
        cloneUrl: 'https://github.com/acme/api.git',
        deliveryId: 'd-1',
      },
    });
  });

  it('reads a form-encoded delivery', () => {
    const payload = gitHubMergedPayload({ repository: 'acme/api', number: 7 });
    const body = Buffer.from(new URLSearchParams({ payload: JSON.stringify(payload) }).toString());
    const event = parseGitHubEvent(
      { ...headers('pull_request'), 'content-type': 'application/x-www-form-urlencoded' },
      body,
    );
    expect(event.kind === 'merged' && event.pullRequest.number).toBe(7);
  });

  it('ignores pings, other events, other actions and closing without a merge, saying why', () => {
    expect(parseGitHubEvent(headers('ping'), json({ zen: 'Keep it logically awesome.' }))).toEqual({
      kind: 'ignored',
      reason: 'ping: the webhook is set up',
    });
    expect(parseGitHubEvent(headers('push'), json({}))).toMatchObject({ kind: 'ignored', reason: /push/ });
    const opened = { ...gitHubMergedPayload({ repository: 'acme/api', number: 1 }), action: 'opened' };
    expect(parseGitHubEvent(headers('pull_request'), json(opened))).toMatchObject({ reason: /opened/ });
    const closed = gitHubMergedPayload({ repository: 'acme/api', number: 1, merged: false });
    expect(parseGitHubEvent(headers('pull_request'), json(closed))).toMatchObject({
      reason: /without merging/,
    });
  });

  it('refuses bad bodies with an error naming the field', () => {
    const fails = (body: Buffer, message: RegExp) => {
      expect(() => parseGitHubEvent(headers('pull_request'), body)).toThrow(DomainError);
      expect(() => parseGitHubEvent(headers('pull_request'), body)).toThrow(message);
    };
    fails(Buffer.from('{not json'), /^body: not valid JSON/);
    fails(json([1]), /^body: must be an object/);
    fails(json({ action: 'closed' }), /^pull_request: must be an object/);
    const noTitle = gitHubMergedPayload({ repository: 'acme/api', number: 1 });
    (noTitle.pull_request as unknown as Record<string, unknown>).title = 5;
    fails(json(noTitle), /^pull_request\.title: must be a string/);
    expect(() => parseGitHubEvent({}, json({}))).toThrow(/X-GitHub-Event/);
  });
});

describe('GitLab events', () => {
  const headers = (event = 'Merge Request Hook') => ({
    'x-gitlab-event': event,
    'x-gitlab-event-uuid': 'uuid-1',
    'idempotency-key': 'idem-1',
    'content-type': 'application/json',
  });

  it('reads a merged merge request', () => {
    const payload = gitLabMergedPayload({
      projectPath: 'acme/platform/api',
      iid: 9,
      title: 'Rename flag',
      description: 'Renames --fast.',
      authorId: 31,
      mergeCommitSha: 'b'.repeat(40),
      target: 'main',
      origin: 'https://gitlab.example.com',
    });
    expect(parseGitLabEvent(headers(), json(payload))).toEqual({
      kind: 'merged',
      pullRequest: {
        provider: 'gitlab',
        repository: 'acme/platform/api',
        number: 9,
        url: 'https://gitlab.example.com/acme/platform/api/-/merge_requests/9',
        title: 'Rename flag',
        description: 'Renames --fast.',
        author: null,
        authorId: 31,
        mergeCommitSha: 'b'.repeat(40),
        baseBranch: 'main',
        cloneUrl: 'https://gitlab.example.com/acme/platform/api.git',
        deliveryId: 'idem-1',
      },
    });
  });

  it('takes the last commit when a fast-forward merge made none, and the event UUID without an idempotency key', () => {
    const payload = gitLabMergedPayload({ projectPath: 'acme/api', iid: 3, mergeCommitSha: null });
    const { 'idempotency-key': _, ...older } = headers();
    const event = parseGitLabEvent(older, json(payload));
    expect(event.kind === 'merged' && event.pullRequest.mergeCommitSha).toBe(
      payload.object_attributes.last_commit.id,
    );
    expect(event.kind === 'merged' && event.pullRequest.deliveryId).toBe('uuid-1');
  });

  it('ignores other events and actions', () => {
    expect(parseGitLabEvent(headers('Push Hook'), json({}))).toMatchObject({
      kind: 'ignored',
      reason: /Push Hook/,
    });
    const opened = gitLabMergedPayload({ projectPath: 'acme/api', iid: 3 });
    opened.object_attributes.action = 'open';
    expect(parseGitLabEvent(headers(), json(opened))).toMatchObject({ kind: 'ignored', reason: /open/ });
  });
});

const file = (path: string, patch: string | null = '@@ -1 +1 @@\n-a\n+b', extra: Partial<ChangedFile> = {}) =>
  ({
    path,
    previousPath: null,
    status: 'modified',
    additions: 1,
    deletions: 1,
    patch,
    ...extra,
  }) as ChangedFile;

describe('path filters (matchesCodeChange)', () => {
  const trigger = (paths: string[], baseBranch: string | null = null) =>
    ({ kind: 'code_change', provider: 'github', repository: 'Acme/API', paths, baseBranch }) as const;
  const change = (changedFiles: string[], baseBranch = 'main') => ({
    repository: 'acme/api',
    baseBranch,
    changedFiles,
  });

  it('matches any file against the globs; none means everything', () => {
    expect(matchesCodeChange(trigger([]), change(['x']))).toBe(true);
    const api = trigger(['src/api/**', 'openapi.yaml']);
    expect(matchesCodeChange(api, change(['README.md', 'src/api/users.ts']))).toBe(true);
    expect(matchesCodeChange(api, change(['openapi.yaml']))).toBe(true);
    expect(matchesCodeChange(api, change(['src/ui/button.tsx', 'docs/api.md']))).toBe(false);
    expect(matchesCodeChange(api, change([]))).toBe(false);
  });

  it('takes dotfiles, and exclusions that leave a file out rather than match every other', () => {
    expect(pathFilter(['**/*.yml'])(['.github/workflows/ci.yml'])).toBe(true);
    const noTests = pathFilter(['src/**', '!**/*.test.ts']);
    expect(noTests(['src/a.test.ts'])).toBe(false);
    expect(noTests(['src/a.test.ts', 'src/a.ts'])).toBe(true);
    expect(pathFilter(['!docs/**'])(['docs/a.md'])).toBe(false);
    expect(pathFilter(['!docs/**'])(['src/a.ts'])).toBe(true);
  });

  it('checks the repository (any case) and the base branch', () => {
    expect(matchesCodeChange(trigger([], 'main'), change(['x'], 'release'))).toBe(false);
    expect(matchesCodeChange(trigger([], 'main'), change(['x'], 'main'))).toBe(true);
    expect(matchesCodeChange(trigger([]), { ...change(['x']), repository: 'acme/other' })).toBe(false);
  });
});

describe('dedupe key', () => {
  const pr: MergedPullRequest = {
    provider: 'github',
    repository: 'acme/api',
    number: 42,
    url: 'https://github.com/acme/api/pull/42',
    title: 't',
    description: '',
    author: 'octocat',
    authorId: null,
    mergeCommitSha: 'c'.repeat(40),
    baseBranch: 'main',
    cloneUrl: 'https://github.com/acme/api.git',
    deliveryId: 'delivery-1',
  };

  it('is the pull request and merge commit, whatever the delivery id', () => {
    expect(dedupeKeyFor(pr)).toBe(`github:acme/api#42@${'c'.repeat(40)}`);
    expect(dedupeKeyFor({ ...pr, deliveryId: 'delivery-2' })).toBe(dedupeKeyFor(pr));
    expect(dedupeKeyFor({ ...pr, mergeCommitSha: 'd'.repeat(40) })).not.toBe(dedupeKeyFor(pr));
    expect(dedupeKeyFor({ ...pr, provider: 'gitlab' })).not.toBe(dedupeKeyFor(pr));
  });

  it('falls back to the delivery id, then to nothing', () => {
    expect(dedupeKeyFor({ ...pr, mergeCommitSha: null })).toBe('github:delivery:delivery-1');
    expect(dedupeKeyFor({ ...pr, mergeCommitSha: null, deliveryId: null })).toBeNull();
  });
});

describe('change context for the prompt', () => {
  const pr: MergedPullRequest = {
    provider: 'github',
    repository: 'acme/api',
    number: 42,
    url: 'https://github.com/acme/api/pull/42',
    title: 'Add cursor pagination',
    description: 'Lists now take `cursor`.',
    author: 'octocat',
    authorId: null,
    mergeCommitSha: 'e'.repeat(40),
    baseBranch: 'main',
    cloneUrl: null,
    deliveryId: null,
  };
  const limits = {
    perFilePatchChars: 200,
    totalPatchChars: 1_000,
    maxFilesListed: 20,
    descriptionChars: 100,
  };

  it('gives title, description and each patch when small', () => {
    const text = changeContext(pr, {
      files: [
        file('src/list.ts', '@@ -1 +1 @@\n-limit\n+cursor'),
        file('logo.png', null, { status: 'added' }),
      ],
      truncated: false,
      author: null,
    });
    expect(text).toContain('Title: Add cursor pagination');
    expect(text).toContain('Lists now take `cursor`.');
    expect(text).toContain('by @octocat');
    expect(text).toContain('--- src/list.ts (modified, +1 -1)\n```diff\n@@ -1 +1 @@\n-limit\n+cursor\n```');
    expect(text).toContain('- logo.png (added, +1 -1)');
  });

  it('stays bounded however large the pull request, listing what it leaves out with counts', () => {
    const big = `@@ -1,300 +1,300 @@\n${Array.from({ length: 300 }, (_, i) => `+line ${i}`).join('\n')}`;
    const files = Array.from({ length: 50 }, (_, i) =>
      file(`src/f${i}.ts`, big, { additions: 300, deletions: 0 }),
    );
    files.push(file('package-lock.json', big));
    const text = changeContext(
      { ...pr, description: 'd'.repeat(5_000) },
      { files, truncated: true, author: null },
      limits,
    );
    expect(text.length).toBeLessThan(4_000);
    expect(text).toContain('patch cut here');
    expect(text).toContain('description cut here');
    expect(text).toContain('Changed files: 51+ (the host lists no more), +15001 -1');
    expect(text).toContain('- src/f5.ts (modified, +300 -0)');
    expect(text).toContain('- and 31 more file(s)');
    // The lock file sorts last, so it is past the listing limit here.
    expect(text).not.toContain('package-lock.json');
  });
});

describe('the payloads the tests send', () => {
  it("are valid under GitHub's published webhook schema", async () => {
    const { gitHubSchemaErrors } = await import('../../helpers/fake-github.ts');
    const payload = gitHubMergedPayload({
      repository: 'acme/api',
      number: 42,
      apiUrl: 'http://127.0.0.1:1/api/v3',
    });
    expect(gitHubSchemaErrors('webhook-pull-request-closed', payload)).toEqual([]);
    const broken = { ...payload, pull_request: { ...payload.pull_request, merged: 'yes' } };
    expect(gitHubSchemaErrors('webhook-pull-request-closed', broken).join()).toMatch(/merged/);
  });
});
