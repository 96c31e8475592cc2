import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config/config.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('documents every configuration setting in its table', () => {
    const missing = Object.keys(SETTINGS).filter((name) => !readme.includes(`| \`${name}\` |`));
    expect(missing).toEqual([]);
  });

  it('keeps its two commands: the quick start and the test suite', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toMatch(/## Tests\n\n```sh\nnpm test\n```/);
  });
});
