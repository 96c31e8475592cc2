import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseUnifiedDiff } from '../../../src/dashboard/pages/jobs/diff.ts';

// The diff comes from git itself, with the flags the local review uses, so the parser is tried
// on what the server really sends: an added, a changed, a deleted, a renamed and a binary file.
const dir = mkdtempSync(path.join(tmpdir(), 'docwright-diff-'));
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], {
    cwd: dir,
    encoding: 'utf8',
  });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function branchDiff(): string {
  git('init', '--quiet', '--initial-branch=main');
  writeFileSync(path.join(dir, 'intro.md'), 'line 1\nline 2\nline 3\nline 4\n');
  writeFileSync(path.join(dir, 'old.md'), 'goodbye\n');
  writeFileSync(path.join(dir, 'moved.md'), 'a\nb\nc\nd\ne\nf\n');
  writeFileSync(path.join(dir, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0]));
  git('add', '--all');
  git('commit', '--quiet', '-m', 'base');
  git('checkout', '--quiet', '-b', 'job');
  writeFileSync(path.join(dir, 'intro.md'), 'line 1\nline two\nline 3\nline 4\nline 5');
  git('rm', '--quiet', 'old.md');
  writeFileSync(path.join(dir, 'new.md'), '# New\n\nHello <script>alert(1)</script>\n');
  git('mv', 'moved.md', 'renamed.md');
  writeFileSync(path.join(dir, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 9, 9, 0]));
  git('add', '--all');
  git('commit', '--quiet', '-m', 'job');
  return git('diff', '--find-renames', 'main...job', '--');
}

describe('parseUnifiedDiff', () => {
  const files = parseUnifiedDiff(branchDiff());
  const file = (name: string) => files.find((f) => f.path === name);

  it('names every changed file, renames with their old path', () => {
    expect(files.map((f) => f.path).sort()).toEqual([
      'intro.md',
      'logo.png',
      'new.md',
      'old.md',
      'renamed.md',
    ]);
    expect(file('renamed.md')?.oldPath).toBe('moved.md');
    expect(file('intro.md')?.oldPath).toBeNull();
    expect(file('renamed.md')?.hunks).toEqual([]);
    expect(file('logo.png')?.hunks).toEqual([]);
  });

  it('numbers removed lines in the old file, added lines in the new, context in both', () => {
    const intro = file('intro.md');
    expect(intro?.additions).toBe(2);
    expect(intro?.deletions).toBe(1);
    expect(intro?.hunks).toHaveLength(1);
    expect(intro?.hunks[0]?.header).toBe('@@ -1,4 +1,5 @@');
    expect(intro?.hunks[0]?.lines).toEqual([
      { kind: 'context', oldLine: 1, newLine: 1, text: 'line 1' },
      { kind: 'del', oldLine: 2, newLine: null, text: 'line 2' },
      { kind: 'add', oldLine: null, newLine: 2, text: 'line two' },
      { kind: 'context', oldLine: 3, newLine: 3, text: 'line 3' },
      { kind: 'context', oldLine: 4, newLine: 4, text: 'line 4' },
      { kind: 'add', oldLine: null, newLine: 5, text: 'line 5' },
      { kind: 'note', oldLine: null, newLine: null, text: 'No newline at end of file' },
    ]);
  });

  it('reads added and deleted files whole, keeping their text as it is', () => {
    expect(file('new.md')?.hunks[0]?.lines.map((l) => [l.kind, l.newLine, l.text])).toEqual([
      ['add', 1, '# New'],
      ['add', 2, ''],
      ['add', 3, 'Hello <script>alert(1)</script>'],
    ]);
    expect(file('old.md')?.hunks[0]?.lines).toEqual([
      { kind: 'del', oldLine: 1, newLine: null, text: 'goodbye' },
    ]);
  });

  it('reads a diff cut short (the server truncates long ones) up to where it stops', () => {
    const whole = git('diff', '--find-renames', 'main...job', '--');
    const cut = whole.slice(0, whole.indexOf('line two') + 4);
    const parsed = parseUnifiedDiff(cut);
    expect(parsed.length).toBeGreaterThan(0);
    expect(parsed.at(-1)?.hunks.at(-1)?.lines.at(-1)).toMatchObject({ kind: 'add', text: 'line' });
    expect(parseUnifiedDiff('')).toEqual([]);
  });
});
