import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  credentialsContext,
  draftPullRequests,
  isLocalRepository,
  repositoryPathFromUrl,
  resolveCodeHostSettings,
} from '../../../src/domain/projects/code-host-settings.ts';
import { SecretBox, SecretBoxError } from '../../../src/domain/secrets/secret-box.ts';

const KEY = `base64:${randomBytes(32).toString('base64')}`;

describe('SecretBox', () => {
  it('round-trips a secret and never stores it in the clear', () => {
    const box = new SecretBox(KEY);
    const sealed = box.seal('ghp_secret_token_value', 'project:prj_1:code-host');
    expect(sealed).not.toContain('ghp_secret');
    expect(SecretBox.isSealed(sealed)).toBe(true);
    expect(box.open(sealed, 'project:prj_1:code-host')).toBe('ghp_secret_token_value');
  });

  it('uses a fresh IV each time', () => {
    const box = new SecretBox(KEY);
    expect(box.seal('same', 'c')).not.toBe(box.seal('same', 'c'));
  });

  it('refuses another context, an altered value and another key', () => {
    const box = new SecretBox(KEY);
    const sealed = box.seal('token', 'project:prj_1:code-host');
    expect(() => box.open(sealed, 'project:prj_2:code-host')).toThrow(/integrity check/);
    const last = sealed.at(-1) === 'A' ? 'B' : 'A';
    expect(() => box.open(sealed.slice(0, -1) + last, 'project:prj_1:code-host')).toThrow(SecretBoxError);
    const other = new SecretBox(`base64:${randomBytes(32).toString('base64')}`);
    expect(() => other.open(sealed, 'project:prj_1:code-host')).toThrow(/encrypted with another key/);
    expect(() => box.open('plain-text', 'c')).toThrow(/format/);
  });

  it('derives a key from a passphrase with scrypt, the same every time', () => {
    const a = new SecretBox('correct horse battery staple');
    const b = new SecretBox('correct horse battery staple');
    expect(b.open(a.seal('x', 'c'), 'c')).toBe('x');
    expect(a.keyId).toBe(b.keyId);
    expect(new SecretBox('another long passphrase!').keyId).not.toBe(a.keyId);
  });

  it('rejects weak or malformed keys with a message naming the setting', () => {
    expect(() => new SecretBox('short')).toThrow(/DOCWRIGHT_SECRET_KEY must be a passphrase of at least 16/);
    expect(() => new SecretBox(`base64:${randomBytes(16).toString('base64')}`)).toThrow(/exactly 32 bytes/);
  });
});

describe('project code host settings', () => {
  const box = new SecretBox(KEY);
  const project = { id: 'prj_1', repository: 'https://github.com/acme/docs.git' };
  const seal = (value: unknown, projectId = 'prj_1') =>
    box.seal(JSON.stringify(value), credentialsContext(projectId));

  it('opens GitHub token and App credentials, and GitLab tokens', () => {
    expect(
      resolveCodeHostSettings(
        project,
        { codeHost: { kind: 'github', credentials: seal({ token: 'ghp_x' }) } },
        box,
      ),
    ).toEqual({ kind: 'github', apiUrl: 'https://api.github.com', auth: { type: 'token', token: 'ghp_x' } });
    const app = { appId: '1', privateKey: 'PEM', installationId: 5 };
    expect(
      resolveCodeHostSettings(
        project,
        {
          codeHost: {
            kind: 'github',
            apiUrl: 'https://ghe.example.com/api/v3',
            repository: 'a/b',
            credentials: seal(app),
          },
        },
        box,
      ),
    ).toEqual({
      kind: 'github',
      apiUrl: 'https://ghe.example.com/api/v3',
      repository: 'a/b',
      auth: { type: 'app', ...app },
    });
    expect(
      resolveCodeHostSettings(
        project,
        { codeHost: { kind: 'gitlab', credentials: seal({ token: 'glpat' }) } },
        box,
      ),
    ).toEqual({ kind: 'gitlab', apiUrl: 'https://gitlab.com/api/v4', token: 'glpat' });
  });

  it('uses the local review page for a local repository without settings', () => {
    expect(resolveCodeHostSettings({ id: 'prj_1', repository: '/srv/docs' }, {}, null)).toEqual({
      kind: 'local',
    });
  });

  it('explains what is missing', () => {
    expect(() => resolveCodeHostSettings(project, {}, box)).toThrow(
      /no code host: run docwright projects update/,
    );
    expect(() => resolveCodeHostSettings(project, { codeHost: { kind: 'github' } }, box)).toThrow(
      /no code host credentials/,
    );
    const stored = { codeHost: { kind: 'github', credentials: seal({ token: 't' }) } };
    expect(() => resolveCodeHostSettings(project, stored, null)).toThrow(
      /DOCWRIGHT_SECRET_KEY is not configured/,
    );
    // Credentials sealed for one project do not open for another.
    expect(() => resolveCodeHostSettings({ ...project, id: 'prj_2' }, stored, box)).toThrow(
      /integrity check/,
    );
    expect(() => resolveCodeHostSettings(project, { codeHost: { kind: 'bitbucket' } }, box)).toThrow(
      /must be one of/,
    );
  });

  it('reads the draft setting, draft by default', () => {
    expect(draftPullRequests({})).toBe(true);
    expect(draftPullRequests({ draft: true })).toBe(true);
    expect(draftPullRequests({ draft: false })).toBe(false);
  });

  it('tells local paths from URLs and derives repository paths', () => {
    expect(isLocalRepository('/srv/docs')).toBe(true);
    expect(isLocalRepository('file:///srv/docs')).toBe(true);
    expect(isLocalRepository('https://github.com/a/b')).toBe(false);
    expect(isLocalRepository('git@github.com:a/b.git')).toBe(false);
    expect(repositoryPathFromUrl('https://github.com/acme/docs.git')).toBe('acme/docs');
    expect(repositoryPathFromUrl('git@github.com:acme/docs.git')).toBe('acme/docs');
    expect(repositoryPathFromUrl('ssh://git@gitlab.com/group/sub/project.git')).toBe('group/sub/project');
    expect(repositoryPathFromUrl('https://github.com/only')).toBeNull();
  });
});
