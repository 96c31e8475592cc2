import { describe, expect, it } from 'vitest';
import { pullRequestBody } from '../../../src/domain/agent/pull-request-body.ts';

const base = {
  jobId: 'job_1',
  summary: 'Documented the retries flag.',
  findings: { introduced: [], preExisting: 0 },
  prompts: ['Document --retries'],
  sources: [],
};

describe('pull request body', () => {
  it('ends with the Sources the change relies on: files at their commit, linked when they can be, and pages', () => {
    const body = pullRequestBody({
      ...base,
      research: [
        {
          kind: 'file',
          repository: 'api',
          commit: '0123456789abcdef0123',
          path: 'src/cli.ts',
          url: 'https://github.com/acme/api/blob/0123456789abcdef0123/src/cli.ts',
        },
        { kind: 'file', repository: 'sdk', commit: 'fedcba9876543210fedc', path: 'a`b.ts', url: null },
        { kind: 'url', url: 'https://nodejs.org/api/http.html' },
      ],
    });
    expect(body.split('### Sources\n\n')[1]).toBe(
      [
        '- [`api:src/cli.ts` at `0123456789ab`](<https://github.com/acme/api/blob/0123456789abcdef0123/src/cli.ts>)',
        '- `sdk:a b.ts` at `fedcba987654`',
        '- <https://nodejs.org/api/http.html>',
        '',
        '<sub>Opened by Docwright job `job_1`.</sub>',
      ].join('\n'),
    );
  });

  it('has no Sources section when the change relied on nothing beyond the docs', () => {
    expect(pullRequestBody({ ...base, research: [] })).not.toContain('### Sources');
  });
});
