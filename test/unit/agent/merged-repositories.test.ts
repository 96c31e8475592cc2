import { describe, expect, it } from 'vitest';
import { hostOf, withMergedRepositories } from '../../../src/domain/agent/research/open-context.ts';

const pr = (number: number, url: string, commit: string) => ({
  url: `https://github.com/acme/x/pull/${number}`,
  title: 't',
  number,
  repository: { url, ref: 'main', commit },
});

describe("the merged pull requests' repositories", () => {
  it('pins a connected repository of the same URL, connects another for the job, and lets the latest merge win', () => {
    const configured = [
      { name: 'api', repository: 'https://GitHub.com/acme/api', ref: 'main' },
      { name: 'sdk', repository: 'https://github.com/acme/other', ref: 'main' },
    ];
    const { entries, pinned, notes } = withMergedRepositories(configured, [
      pr(1, 'https://github.com/acme/api.git', 'a1'),
      pr(2, 'https://github.com/acme/SDK.git', 'b1'),
      pr(3, 'https://github.com/acme/api.git/', 'a2'),
      { url: 'https://github.com/acme/x/pull/4', title: 'no repository', number: 4 },
    ]);
    expect(entries).toEqual([
      ...configured,
      { name: 'sdk-2', repository: 'https://github.com/acme/SDK.git', ref: 'main' },
    ]);
    expect(Object.fromEntries(pinned)).toEqual({ api: 'a2', 'sdk-2': 'b1' });
    expect(notes.get('api')).toBe('the repository of the merged pull request #3, at its merge commit');
  });

  it('tells hosts apart by name, and a path has none', () => {
    expect(hostOf('https://GitHub.com/acme/api.git')).toBe('github.com');
    expect(hostOf('git@github.com:acme/api.git')).toBe('github.com');
    expect(hostOf('ssh://git@gitlab.example.com/acme/api.git')).toBe('gitlab.example.com');
    expect(hostOf('/srv/git/api')).toBeNull();
  });
});
