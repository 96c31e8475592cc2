import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  compareFindings,
  type ValidationFinding,
  validateDocumentation,
} from '../../../src/domain/agent/tools/index.ts';
import { committedTree } from '../../../src/integrations/git/committed-tree.ts';
import { GitRunner } from '../../../src/integrations/git/git-runner.ts';
import { git } from '../../helpers/git-repos.ts';
import { harness, tempDir, writeTree } from './fixtures.ts';

const finding = (file: string, message: string, line?: number): ValidationFinding => ({
  file,
  rule: 'broken-link',
  message,
  ...(line === undefined ? {} : { line }),
});

describe('findings a change introduced', () => {
  it('subtracts the base findings by file, rule and message, each matching once, whatever their line', () => {
    const base = [finding('a.mdx', '/x missing', 3), finding('b.mdx', '/y missing', 1)];
    const current = [
      finding('a.mdx', '/x missing', 9), // moved down by an edit above it: the same finding
      finding('a.mdx', '/x missing', 12), // a second one of the same: new
      finding('c.mdx', '/z missing', 1),
    ];
    expect(compareFindings(current, base)).toEqual({
      introduced: [finding('a.mdx', '/x missing', 12), finding('c.mdx', '/z missing', 1)],
      preExisting: 1,
    });
  });
});

describe('validating a commit without checking it out', () => {
  it('finds what validating its working copy finds, and follows no symbolic link', async () => {
    const repo = await tempDir('docwright-commit-');
    await writeTree(repo, {
      'docs.json': JSON.stringify({ navigation: { pages: ['index', 'gone'] } }, null, 2),
      'index.mdx': '---\ntitle: Home\n---\n\n[ok](/guide) [broken](/missing) ![img](/logo.png)\n',
      'guide.mdx': '<Broken\n',
      'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00]),
      'node_modules/pkg/readme.mdx': '<Broken\n',
    });
    await symlink('guide.mdx', path.join(repo, 'linked.mdx'));
    git(repo, 'init', '--quiet', '--initial-branch=main');
    git(repo, 'add', '--all', '--force');
    git(repo, 'commit', '--quiet', '-m', 'Docs');
    const sha = git(repo, 'rev-parse', 'HEAD').trim();
    const tree = committedTree(new GitRunner({ logger: pino({ level: 'silent' }) }), { cwd: repo }, sha);
    const fromCommit = await validateDocumentation(tree);
    expect(fromCommit).toEqual(await validateDocumentation(repo));
    expect(fromCommit.map((f) => `${f.file} ${f.rule}`)).toEqual([
      'docs.json navigation',
      'guide.mdx syntax',
      'index.mdx broken-link',
    ]);
    expect((await tree.files()).map((f) => f.path)).not.toContain('linked.mdx');
  });
});

describe('the validate tool with the base findings', () => {
  it('reports what the changes introduced and counts what was there before', async () => {
    const site = await tempDir('docwright-baseline-');
    await writeTree(site, {
      'docs.json': JSON.stringify({ navigation: { pages: ['index'] } }),
      'index.mdx': '[old](/retired)\n',
    });
    const baseline = await validateDocumentation(site);
    await writeTree(site, { 'new.mdx': '[mine](/pricing)\n' });
    const tools = harness(site, undefined, { baseline: async () => baseline });
    expect(await tools.call('validate', {})).toBe(
      '1 problem introduced by your changes, in 2 pages:\n' +
        'new.mdx:1 [broken-link] /pricing points at a page or file that does not exist\n' +
        '1 other problem was there before your changes; leave it unless you were asked to fix it.',
    );
    await writeTree(site, { 'new.mdx': '[mine](/index)\n' });
    expect(await tools.call('validate', {})).toBe(
      'No problems introduced by your changes found in 2 pages. 1 other problem was there before your changes; leave it unless you were asked to fix it.',
    );
  });
});
