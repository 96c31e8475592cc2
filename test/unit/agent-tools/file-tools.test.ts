import { readFile, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDocumentationTools } from '../../../src/domain/agent/tools/index.ts';
import { harness, tempDir, writeTree } from './fixtures.ts';

let repo: string;

beforeEach(async () => {
  repo = await tempDir();
  await writeTree(repo, {
    '.git/config': '[core]\n',
    'node_modules/pkg/readme.md': 'webhook in a dependency\n',
    'index.mdx': '---\ntitle: Home\n---\n\n# Welcome\n\nWidgets and webhooks.\n',
    'guides/webhooks.mdx': '# Webhooks\n\nA webhook fires on change.\nSee the webhook guide.\n',
    'guides/auth.mdx': '# Auth\n\nUse an API key.\n',
    '.docwright/AGENTS.md': 'Be brief.\n',
    'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]),
  });
});

describe('the tool set', () => {
  it('has every tool, each with a description and an object JSON schema', () => {
    const tools = createDocumentationTools(repo);
    expect(Object.keys(tools).sort()).toEqual(
      [
        'delete_file',
        'edit_file',
        'list_files',
        'move_file',
        'read_file',
        'search',
        'validate',
        'write_file',
      ].sort(),
    );
    for (const [name, tool] of Object.entries(tools)) {
      expect(tool.description, name).toMatch(/\w{10,}/);
      const schema = (tool.inputSchema as { jsonSchema: { type: string; additionalProperties: boolean } })
        .jsonSchema;
      expect(schema.type, name).toBe('object');
      expect(schema.additionalProperties, name).toBe(false);
      expect(JSON.parse(JSON.stringify(schema)), name).toEqual(schema);
    }
  });

  it('rejects bad limits', () => {
    expect(() => createDocumentationTools(repo, { maxOutputChars: 0 })).toThrow(/positive integer/);
    expect(() => createDocumentationTools(repo, { maxSearchMatches: 1.5 })).toThrow(/positive integer/);
  });

  it.each([
    ['read_file', {}, /missing path/],
    ['read_file', { path: 'index.mdx', extra: 1 }, /unknown argument extra/],
    ['read_file', { path: 'index.mdx', start_line: 0 }, /start_line must be >= 1/],
    ['read_file', { path: ['index.mdx'] }, /path must be string/],
    ['read_file', { path: 'index.mdx', start_line: 'two' }, /start_line must be integer/],
    ['write_file', { path: 'x.md' }, /missing content/],
    ['edit_file', { path: 'index.mdx', old_string: '', new_string: 'x' }, /old_string/],
    ['move_file', { from: 'index.mdx' }, /missing to/],
    ['search', { pattern: '' }, /pattern/],
    ['read_file', 'index.mdx', /arguments must be object/],
    ['read_file', null, /arguments must be object/],
  ])('%s answers malformed arguments %j with a readable error', async (name, input, message) => {
    const output = await harness(repo).call(name, input);
    expect(output).toMatch(/^Error: invalid arguments: /);
    expect(output).toMatch(message);
  });
});

it('accepts null for an omitted argument and numbers sent as strings, as smaller models send them', async () => {
  const out = await harness(repo).call('read_file', { path: 'index.mdx', start_line: '5', end_line: null });
  expect(out).toMatch(/^index.mdx \(lines 5-7 of 7\)/);
  expect(await harness(repo).call('search', { pattern: 'Auth', path: null, case_insensitive: 'false' })).toBe(
    'guides/auth.mdx:1: # Auth',
  );
});

describe('read_file', () => {
  it('shows numbered lines with a header', async () => {
    expect(await harness(repo).call('read_file', { path: 'guides/webhooks.mdx' })).toBe(
      'guides/webhooks.mdx (lines 1-4 of 4)\n1\t# Webhooks\n2\t\n3\tA webhook fires on change.\n4\tSee the webhook guide.',
    );
  });

  it('reads a line range, clamping the end', async () => {
    const tools = harness(repo);
    expect(await tools.call('read_file', { path: 'index.mdx', start_line: 5, end_line: 5 })).toBe(
      'index.mdx (lines 5-5 of 7)\n5\t# Welcome',
    );
    expect(await tools.call('read_file', { path: 'index.mdx', start_line: 6, end_line: 100 })).toBe(
      'index.mdx (lines 6-7 of 7)\n6\t\n7\tWidgets and webhooks.',
    );
    expect(await tools.call('read_file', { path: 'index.mdx', start_line: 8 })).toBe(
      'Error: start_line 8 is past the end of index.mdx, which has 7 lines',
    );
    expect(await tools.call('read_file', { path: 'index.mdx', start_line: 5, end_line: 2 })).toBe(
      'Error: end_line 2 is before start_line 5',
    );
  });

  it('pads line numbers to the widest one and handles CRLF', async () => {
    await writeTree(repo, { 'crlf.md': Array.from({ length: 12 }, (_, i) => `l${i + 1}`).join('\r\n') });
    const out = await harness(repo).call('read_file', { path: 'crlf.md', start_line: 9 });
    expect(out).toBe('crlf.md (lines 9-12 of 12)\n 9\tl9\n10\tl10\n11\tl11\n12\tl12');
  });

  it('caps long output and says how to read on', async () => {
    await writeTree(repo, {
      'long.md': Array.from({ length: 500 }, (_, i) => `line number ${i + 1}`).join('\n'),
    });
    const tools = harness(repo, { maxOutputChars: 1_000 });
    const out = await tools.call('read_file', { path: 'long.md' });
    expect(out.length).toBeLessThan(1_200);
    const next = /call read_file with start_line=(\d+) to read on/.exec(out)?.[1];
    expect(next).toBeDefined();
    expect(out).toContain(`line number ${Number(next) - 1}\n`);
    expect(out).not.toContain(`line number ${next}\n`);
    const rest = await tools.call('read_file', { path: 'long.md', start_line: Number(next) });
    expect(rest).toContain(`\tline number ${next}\n`);
  });

  it('cuts a single line longer than the cap and points past it', async () => {
    await writeTree(repo, { 'min.js': `${'x'.repeat(5_000)}\nsecond\n` });
    const out = await harness(repo, { maxOutputChars: 500 }).call('read_file', { path: 'min.js' });
    expect(out.length).toBeLessThan(700);
    expect(out).toMatch(/line 1 is longer than the output limit.*start_line=2/);
  });

  it('refuses binaries, oversized files, directories and missing files', async () => {
    await writeTree(repo, { 'big.md': 'x'.repeat(2_000) });
    const tools = harness(repo, { maxFileBytes: 1_000 });
    expect(await tools.call('read_file', { path: 'logo.png' })).toBe(
      'Error: logo.png is a binary file; only text files can be read',
    );
    expect(await tools.call('read_file', { path: 'big.md' })).toMatch(
      /^Error: big.md is 2000 bytes, over the 1000-byte limit/,
    );
    expect(await tools.call('read_file', { path: 'guides' })).toBe(
      'Error: guides is a directory, not a file',
    );
    expect(await tools.call('read_file', { path: 'nope.md' })).toBe('Error: nope.md does not exist');
    expect(await tools.call('read_file', { path: 'index.mdx/x' })).toMatch(/^Error: /);
  });

  it('says so for an empty file', async () => {
    await writeTree(repo, { 'empty.md': '' });
    expect(await harness(repo).call('read_file', { path: 'empty.md' })).toBe('empty.md is empty.');
  });
});

describe('write_file', () => {
  it('creates files with their parent directories, and overwrites', async () => {
    const tools = harness(repo);
    expect(await tools.call('write_file', { path: 'a/b/c.mdx', content: '# C\n' })).toBe(
      'Created a/b/c.mdx (4 bytes).',
    );
    expect(await readFile(join(repo, 'a/b/c.mdx'), 'utf8')).toBe('# C\n');
    expect(await tools.call('write_file', { path: 'a/b/c.mdx', content: 'é' })).toBe(
      'Overwrote a/b/c.mdx (2 bytes).',
    );
    expect(await readFile(join(repo, 'a/b/c.mdx'), 'utf8')).toBe('é');
  });

  it('refuses content over the size limit, directories, and a file in the way of a directory', async () => {
    const tools = harness(repo, { maxFileBytes: 10 });
    expect(await tools.call('write_file', { path: 'x.md', content: 'x'.repeat(11) })).toMatch(
      /^Error: the new content of x.md would be 11 bytes, over the 10-byte limit/,
    );
    expect(await tools.call('write_file', { path: 'guides', content: 'x' })).toBe(
      'Error: guides is a directory, not a file',
    );
    expect(await tools.call('write_file', { path: 'index.mdx/child.md', content: 'x' })).toBe(
      'Error: index.mdx is a file, not a directory',
    );
  });

  it('writes through a link to a page inside the working copy, to the page itself', async () => {
    await symlink('guides/auth.mdx', join(repo, 'auth-link.mdx'));
    await harness(repo).call('write_file', { path: 'auth-link.mdx', content: 'new' });
    expect(await readFile(join(repo, 'guides/auth.mdx'), 'utf8')).toBe('new');
  });
});

describe('edit_file', () => {
  it('replaces text that occurs exactly once', async () => {
    const out = await harness(repo).call('edit_file', {
      path: 'guides/webhooks.mdx',
      old_string: 'fires on change',
      new_string: 'fires on every change',
    });
    expect(out).toBe('Edited guides/webhooks.mdx at line 3.');
    expect(await readFile(join(repo, 'guides/webhooks.mdx'), 'utf8')).toBe(
      '# Webhooks\n\nA webhook fires on every change.\nSee the webhook guide.\n',
    );
  });

  it('refuses text that is missing, and leaves the file alone', async () => {
    const out = await harness(repo).call('edit_file', {
      path: 'guides/webhooks.mdx',
      old_string: 'fires on Change',
      new_string: 'x',
    });
    expect(out).toMatch(/^Error: old_string was not found in guides\/webhooks.mdx/);
    expect(await readFile(join(repo, 'guides/webhooks.mdx'), 'utf8')).toContain('fires on change');
  });

  it('refuses text that occurs more than once, naming the lines', async () => {
    const out = await harness(repo).call('edit_file', {
      path: 'guides/webhooks.mdx',
      old_string: 'webhook',
      new_string: 'hook',
    });
    expect(out).toBe(
      'Error: old_string occurs 2 times in guides/webhooks.mdx (at lines 3, 4); include more surrounding text so that it matches exactly once',
    );
    expect(await readFile(join(repo, 'guides/webhooks.mdx'), 'utf8')).toContain('A webhook fires');
  });

  it('counts overlapping occurrences as ambiguous', async () => {
    await writeTree(repo, { 'a.md': 'aaa' });
    expect(
      await harness(repo).call('edit_file', { path: 'a.md', old_string: 'aa', new_string: 'b' }),
    ).toMatch(/occurs 2 times/);
  });

  it('inserts new_string literally, `$&` and all', async () => {
    await harness(repo).call('edit_file', {
      path: 'guides/auth.mdx',
      old_string: 'API key',
      new_string: '$& ($1) $$',
    });
    expect(await readFile(join(repo, 'guides/auth.mdx'), 'utf8')).toBe('# Auth\n\nUse an $& ($1) $$.\n');
  });

  it('hints at CRLF line endings when a multi-line old_string does not match', async () => {
    await writeTree(repo, { 'win.md': 'one\r\ntwo\r\n' });
    expect(
      await harness(repo).call('edit_file', { path: 'win.md', old_string: 'one\ntwo', new_string: 'x' }),
    ).toMatch(/CRLF/);
  });

  it('refuses a no-op edit', async () => {
    expect(
      await harness(repo).call('edit_file', {
        path: 'guides/auth.mdx',
        old_string: 'Auth',
        new_string: 'Auth',
      }),
    ).toBe('Error: old_string and new_string are the same');
  });
});

describe('move_file and delete_file', () => {
  it('moves a file into a new directory', async () => {
    const tools = harness(repo);
    expect(await tools.call('move_file', { from: 'guides/auth.mdx', to: 'security/auth.mdx' })).toBe(
      'Moved guides/auth.mdx to security/auth.mdx.',
    );
    expect(await readFile(join(repo, 'security/auth.mdx'), 'utf8')).toContain('# Auth');
    await expect(stat(join(repo, 'guides/auth.mdx'))).rejects.toThrow();
  });

  it('moves a directory, but not into itself', async () => {
    const tools = harness(repo);
    expect(await tools.call('move_file', { from: 'guides', to: 'guides/sub' })).toBe(
      'Error: cannot move guides into itself',
    );
    expect(await tools.call('move_file', { from: 'guides', to: 'docs/guides' })).toBe(
      'Moved guides to docs/guides.',
    );
    expect(await readFile(join(repo, 'docs/guides/auth.mdx'), 'utf8')).toContain('# Auth');
  });

  it('refuses to overwrite, and to move what does not exist', async () => {
    const tools = harness(repo);
    expect(await tools.call('move_file', { from: 'guides/auth.mdx', to: 'index.mdx' })).toBe(
      'Error: index.mdx already exists; delete it first or choose another name',
    );
    expect(await tools.call('move_file', { from: 'nope.mdx', to: 'x.mdx' })).toBe(
      'Error: nope.mdx does not exist',
    );
    expect(await readFile(join(repo, 'index.mdx'), 'utf8')).toContain('# Welcome');
  });

  it('deletes files, not directories', async () => {
    const tools = harness(repo);
    expect(await tools.call('delete_file', { path: 'guides/auth.mdx' })).toBe('Deleted guides/auth.mdx.');
    await expect(stat(join(repo, 'guides/auth.mdx'))).rejects.toThrow();
    expect(await tools.call('delete_file', { path: 'guides' })).toBe(
      'Error: guides is a directory; delete_file deletes single files',
    );
    expect(await tools.call('delete_file', { path: 'guides/auth.mdx' })).toBe(
      'Error: guides/auth.mdx does not exist',
    );
  });
});

describe('list_files', () => {
  it('lists everything but .git and node_modules, hidden files included', async () => {
    expect(await harness(repo).call('list_files', {})).toBe(
      ['index.mdx', 'logo.png', '.docwright/AGENTS.md', 'guides/auth.mdx', 'guides/webhooks.mdx'].join('\n'),
    );
  });

  it('filters by glob relative to the listed directory', async () => {
    const tools = harness(repo);
    expect(await tools.call('list_files', { pattern: '**/*.mdx' })).toBe(
      'index.mdx\nguides/auth.mdx\nguides/webhooks.mdx',
    );
    expect(await tools.call('list_files', { pattern: '*.mdx' })).toBe('index.mdx');
    expect(await tools.call('list_files', { pattern: 'w*', path: 'guides' })).toBe('guides/webhooks.mdx');
    expect(await tools.call('list_files', { pattern: '**/*.{md,png}' })).toBe(
      'logo.png\n.docwright/AGENTS.md',
    );
    expect(await tools.call('list_files', { pattern: '**/*.txt' })).toBe(
      'No files match **/*.txt in the repository.',
    );
    expect(await tools.call('list_files', { path: 'index.mdx' })).toBe(
      'Error: index.mdx is a file, not a directory',
    );
  });

  it('bounds the listing and says how many were left out', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`many/p${String(i).padStart(2, '0')}.md`] = '';
    await writeTree(repo, files);
    const out = await harness(repo, { maxListedFiles: 10 }).call('list_files', { path: 'many' });
    expect(out.split('\n').slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => `many/p0${i}.md`));
    expect(out).toContain('[20 more matching files not shown; narrow the pattern or path]');
    const capped = await harness(repo, { maxOutputChars: 100 }).call('list_files', { path: 'many' });
    expect(capped).toMatch(/\[output truncated: showed \d+ of \d+ characters\. Narrow the pattern or path/);
  });
});

describe('search', () => {
  it('finds matching lines as path:line: text, skipping .git, node_modules and binaries', async () => {
    expect(await harness(repo).call('search', { pattern: 'webhook' })).toBe(
      'index.mdx:7: Widgets and webhooks.\nguides/webhooks.mdx:3: A webhook fires on change.\nguides/webhooks.mdx:4: See the webhook guide.',
    );
  });

  it('supports case-insensitive search, a path and a glob', async () => {
    const tools = harness(repo);
    expect(await tools.call('search', { pattern: '^# w', case_insensitive: true })).toBe(
      'index.mdx:5: # Welcome\nguides/webhooks.mdx:1: # Webhooks',
    );
    expect(await tools.call('search', { pattern: '^#', path: 'guides', glob: 'a*' })).toBe(
      'guides/auth.mdx:1: # Auth',
    );
    expect(await tools.call('search', { pattern: 'key', path: 'guides/auth.mdx' })).toBe(
      'guides/auth.mdx:3: Use an API key.',
    );
    expect(await tools.call('search', { pattern: 'brief', glob: '**/*.md' })).toBe(
      '.docwright/AGENTS.md:1: Be brief.',
    );
  });

  it('bounds the matches and says there are more', async () => {
    await writeTree(repo, { 'many.md': 'hit\n'.repeat(50) });
    const out = await harness(repo, { maxSearchMatches: 5 }).call('search', {
      pattern: 'hit',
      path: 'many.md',
    });
    expect(out.split('\n').slice(0, 5)).toEqual([1, 2, 3, 4, 5].map((n) => `many.md:${n}: hit`));
    expect(out).toContain('[more than 5 matches; only the first 5 are shown.');
  });

  it('shortens very long lines around the match', async () => {
    await writeTree(repo, { 'wide.md': `${'a'.repeat(1_000)}NEEDLE${'b'.repeat(1_000)}` });
    const out = await harness(repo).call('search', { pattern: 'NEEDLE' });
    expect(out).toContain('NEEDLE');
    expect(out.length).toBeLessThan(300);
  });

  it('explains no matches, invalid expressions and invalid globs', async () => {
    const tools = harness(repo);
    expect(await tools.call('search', { pattern: 'zebra' })).toMatch(
      /^No matches for \/zebra\/ in \d+ files \(1 binary/,
    );
    expect(await tools.call('search', { pattern: '(unclosed' })).toMatch(
      /^Error: invalid regular expression: /,
    );
  });

  it('stops a runaway regular expression and says so', async () => {
    await writeTree(repo, { 'trap.md': `${'a'.repeat(40)}!\n` });
    const out = await harness(repo, { searchTimeoutMs: 300 }).call('search', { pattern: '^(a+)+$' });
    expect(out).toBe(
      'Error: search was stopped after 0.3 s; use a simpler regular expression or narrow path/glob',
    );
  });

  it('stops when the turn is aborted', async () => {
    await writeTree(repo, { 'trap.md': `${'a'.repeat(40)}!\n` });
    const { tools } = harness(repo);
    const controller = new AbortController();
    const running = tools.search?.execute?.(
      { pattern: '^(a+)+$' } as never,
      {
        toolCallId: 'c',
        messages: [],
        context: {},
        abortSignal: controller.signal,
      } as never,
    );
    setTimeout(() => controller.abort(), 50);
    expect(await running).toBe('Error: search was cancelled');
  });
});

describe('errors', () => {
  it('refuses absurdly long paths and keeps quoted input short', async () => {
    const tools = harness(repo);
    expect(await tools.call('read_file', { path: 'a/'.repeat(600) })).toBe(
      'Error: path is longer than 1024 characters',
    );
    const out = await tools.call('search', { pattern: `(${'x'.repeat(10_000)}` });
    expect(out).toMatch(/^Error: invalid regular expression: /);
    expect(out.length).toBeLessThan(2_100);
  });

  it('says "cancelled" when the turn is aborted during a listing', async () => {
    const { tools } = harness(repo);
    const output = await tools.list_files?.execute?.(
      {} as never,
      {
        toolCallId: 'c',
        messages: [],
        context: {},
        abortSignal: AbortSignal.abort(),
      } as never,
    );
    expect(output).toBe('Error: cancelled');
  });
});

describe('parallel tool calls', () => {
  it('run one at a time, in the order they were made', async () => {
    await writeTree(repo, { 'chain.md': 'step-0\n' });
    const tools = harness(repo);
    const edits = Array.from({ length: 20 }, (_, i) =>
      tools.call('edit_file', { path: 'chain.md', old_string: `step-${i}\n`, new_string: `step-${i + 1}\n` }),
    );
    const reading = tools.call('read_file', { path: 'chain.md' });
    expect(await Promise.all(edits)).toEqual(Array.from({ length: 20 }, () => 'Edited chain.md at line 1.'));
    expect(await reading).toBe('chain.md (lines 1-1 of 1)\n1\tstep-20');
  });
});

it('says so when the working copy is missing, and recovers once it exists', async () => {
  const tools = harness(join(repo, 'later'));
  expect(await tools.call('read_file', { path: 'x.md' })).toBe('Error: the working copy is missing');
  await writeTree(repo, { 'later/x.md': 'here\n' });
  expect(await tools.call('read_file', { path: 'x.md' })).toBe('x.md (lines 1-1 of 1)\n1\there');
});
