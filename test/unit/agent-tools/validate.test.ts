import { cp, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { formatFindings, validateDocumentation } from '../../../src/domain/agent/tools/index.ts';
import { harness, tempDir, writeTree } from './fixtures.ts';

const EXAMPLE_SITE = join(import.meta.dirname, '../../../examples/docs-site');

let site: string;

beforeEach(async () => {
  site = await tempDir('docwright-validate-');
  await cp(EXAMPLE_SITE, site, { recursive: true });
});

describe('validateDocumentation on the example Mintlify site', () => {
  it('finds nothing wrong with the site as shipped', async () => {
    expect(await validateDocumentation(site)).toEqual([]);
    expect(await harness(site).call('validate', {})).toMatch(/^No problems found in \d+ pages\.$/);
  });

  it('reports MDX that does not parse, with its line', async () => {
    await writeTree(site, {
      'guides/broken.mdx': '---\ntitle: Broken\n---\n\nIntro.\n\n<Card title="x">\nNever closed.\n',
      'guides/brace.mdx': '# Title\n\nAn {unclosed expression\n',
      'guides/comment.mdx': '# Title\n\n<!-- HTML comments are not MDX -->\n',
    });
    const findings = await validateDocumentation(site);
    expect(findings).toEqual([
      { file: 'guides/brace.mdx', line: 3, rule: 'syntax', message: expect.stringMatching(/closing brace/) },
      {
        file: 'guides/broken.mdx',
        line: 7,
        rule: 'syntax',
        message: expect.stringMatching(/closing tag for `<Card>`/),
      },
      {
        file: 'guides/comment.mdx',
        line: 3,
        rule: 'syntax',
        message: expect.stringMatching(/comment in MDX/),
      },
    ]);
  });

  it('reports frontmatter that is not valid YAML, unterminated, or not a mapping', async () => {
    await writeTree(site, {
      'a.mdx': '---\ntitle: "unterminated\ndescription: x\n---\n\n# A\n',
      'b.mdx': '---\ntitle: a: b\n---\n\n# B\n',
      'c.mdx': '---\ntitle: C\n\n# C never closes the frontmatter\n',
      'd.mdx': '---\n- just\n- a list\n---\n\n# D\n',
      'e.mdx': '---\n---\n\n# Empty frontmatter is fine\n',
    });
    const findings = (await validateDocumentation(site)).map(({ file, line, rule }) => ({
      file,
      line,
      rule,
    }));
    expect(findings).toEqual([
      { file: 'a.mdx', line: expect.any(Number), rule: 'frontmatter' },
      { file: 'b.mdx', line: 2, rule: 'frontmatter' },
      { file: 'c.mdx', line: 1, rule: 'frontmatter' },
      { file: 'd.mdx', line: 2, rule: 'frontmatter' },
    ]);
  });

  it('keeps line numbers right below frontmatter', async () => {
    await writeTree(site, { 'f.mdx': '---\ntitle: F\ndescription: G\n---\n\nline 6\n\n[gone](/nowhere)\n' });
    expect(await validateDocumentation(site)).toEqual([
      {
        file: 'f.mdx',
        line: 8,
        rule: 'broken-link',
        message: '/nowhere points at a page or file that does not exist',
      },
    ]);
  });

  it('reports internal links, component hrefs, images and imports that lead nowhere', async () => {
    await writeTree(site, {
      'guides/links.mdx': [
        '# Links',
        '',
        '[absolute ok](/guides/webhooks) [relative ok](./authentication) [parent ok](../quickstart#create-a-widget)',
        '[with extension ok](webhooks.mdx) [root ok](/) [query ok](/quickstart?x=1)',
        '[external](https://example.com/missing) [mail](mailto:a@b.c) [anchor](#links)',
        '[absolute broken](/guides/missing)',
        '[relative broken](./nope)',
        '[escapes](../../outside)',
        '<Card title="x" href="/api-reference/missing">x</Card>',
        '![logo](/images/logo.png) [by reference][ref]',
        '',
        '[ref]: /also-missing',
        '[unused]: /not-rendered-so-not-broken',
      ].join('\n'),
      'snippets/ok.mdx': 'Snippet.\n',
      'guides/imports.mdx':
        "import Ok from '/snippets/ok.mdx';\nimport Gone from '/snippets/gone.mdx';\nimport { x } from 'some-package';\n\n# Imports\n",
    });
    const findings = await validateDocumentation(site);
    expect(findings.map((f) => `${f.file}:${f.line} ${f.rule} ${f.message}`)).toEqual([
      'guides/imports.mdx:1 broken-import /snippets/gone.mdx points at a page or file that does not exist',
      'guides/links.mdx:6 broken-link /guides/missing points at a page or file that does not exist',
      'guides/links.mdx:7 broken-link ./nope points at a page or file that does not exist',
      'guides/links.mdx:8 broken-link ../../outside points outside the repository',
      'guides/links.mdx:9 broken-link /api-reference/missing points at a page or file that does not exist',
      'guides/links.mdx:10 broken-link /images/logo.png points at a page or file that does not exist',
      'guides/links.mdx:12 broken-link /also-missing points at a page or file that does not exist',
    ]);
    await writeTree(site, { 'images/logo.png': 'png' });
    expect((await validateDocumentation(site)).some((f) => f.message.includes('logo.png'))).toBe(false);
  });

  it('reports navigation entries for pages that do not exist, at their line in docs.json', async () => {
    await writeTree(site, {
      'docs.json': JSON.stringify(
        {
          name: 'Acme',
          navigation: {
            tabs: [
              {
                tab: 'Docs',
                groups: [
                  { group: 'Start', pages: ['index', 'quickstart', 'guides/removed'] },
                  {
                    group: 'Nested',
                    pages: [{ group: 'Inner', pages: ['guides/webhooks', 'deep/missing'] }],
                  },
                ],
              },
              {
                tab: 'API',
                groups: [{ group: 'Endpoints', pages: ['GET /widgets', 'api-reference/overview'] }],
              },
              { tab: 'Blog', href: 'https://example.com/blog' },
            ],
          },
        },
        null,
        2,
      ),
    });
    const findings = await validateDocumentation(site);
    expect(findings).toEqual([
      {
        file: 'docs.json',
        line: 13,
        rule: 'navigation',
        message: 'Navigation entry "guides/removed" points at a page that does not exist',
      },
      {
        file: 'docs.json',
        line: 23,
        rule: 'navigation',
        message: 'Navigation entry "deep/missing" points at a page that does not exist',
      },
    ]);
  });

  it('reports a docs.json that is not JSON', async () => {
    await writeTree(site, { 'docs.json': '{\n  "navigation": {\n    "groups": [,]\n  }\n}\n' });
    expect(await validateDocumentation(site)).toEqual([
      { file: 'docs.json', line: 3, rule: 'config', message: expect.stringMatching(/^Invalid JSON: /) },
    ]);
  });

  it('checks the legacy mint.json navigation too', async () => {
    await writeTree(site, {
      'mint.json': JSON.stringify({
        name: 'Acme',
        navigation: [{ group: 'Start', pages: ['index', 'gone'] }],
      }),
    });
    const findings = await validateDocumentation(site);
    expect(findings).toEqual([
      {
        file: 'mint.json',
        line: 1,
        rule: 'navigation',
        message: 'Navigation entry "gone" points at a page that does not exist',
      },
    ]);
  });

  it('sees a page changed since the last run, even at the same size', async () => {
    await writeTree(site, { 'same.mdx': '# Fine page\n' });
    expect(await validateDocumentation(site)).toEqual([]);
    await writeTree(site, { 'same.mdx': '<Fine page\n' });
    expect((await validateDocumentation(site)).map((f) => `${f.file} ${f.rule}`)).toEqual([
      'same.mdx syntax',
    ]);
    await writeTree(site, { 'same.mdx': '# Fine page\n' });
    expect(await validateDocumentation(site)).toEqual([]);
  });

  it('formats findings for the model and for a pull request body', async () => {
    await writeTree(site, { 'x.mdx': '[a](/missing)\n' });
    const findings = await validateDocumentation(site);
    expect(formatFindings(findings)).toBe(
      'x.mdx:1 [broken-link] /missing points at a page or file that does not exist',
    );
    expect(await harness(site).call('validate', {})).toBe(
      `1 problem found in 7 pages:\nx.mdx:1 [broken-link] /missing points at a page or file that does not exist`,
    );
  });

  it('caps the validate output', async () => {
    await writeTree(site, {
      'x.mdx': Array.from({ length: 200 }, (_, i) => `[a](/missing-${i})`).join('\n\n'),
    });
    const out = await harness(site, { maxOutputChars: 2_000 }).call('validate', {});
    expect(out).toMatch(/^200 problems found/);
    expect(out).toMatch(/\[output truncated: .*Fix these and run validate again to see the rest\.\]$/);
  });

  it('ignores .git, node_modules, hidden directories and symbolic links', async () => {
    const outside = await tempDir();
    await writeTree(outside, { 'bad.mdx': '<Broken>\n' });
    await writeTree(site, {
      '.git/x.mdx': '<Broken>\n',
      'node_modules/p/readme.mdx': '<Broken>\n',
      '.github/template.md': '<Broken>\n',
    });
    await symlink(outside, join(site, 'linked'));
    await symlink(join(outside, 'bad.mdx'), join(site, 'linked-page.mdx'));
    expect(await validateDocumentation(site)).toEqual([]);
  });
});

describe('validateDocumentation elsewhere', () => {
  let repo: string;
  beforeEach(async () => {
    repo = await tempDir();
  });

  it('checks mkdocs.yml navigation against docs_dir, tolerating mkdocs YAML tags', async () => {
    await writeTree(repo, {
      'mkdocs.yml': [
        'site_name: Acme',
        'docs_dir: documentation',
        'markdown_extensions:',
        '  - pymdownx.emoji:',
        '      emoji_index: !!python/name:material.extensions.emoji.twemoji',
        'nav:',
        '  - Home: index.md',
        '  - Guides:',
        '      - guides/setup.md',
        '      - Missing: guides/missing.md',
        '  - External: https://example.com',
      ].join('\n'),
      'documentation/index.md':
        '# Home\n\n<!-- comments are fine in Markdown -->\n\n[Setup](guides/setup.md) [gone](guides/gone.md)\n',
      'documentation/guides/setup.md': '# Setup\n\n[Home](../index.md)\n',
    });
    const findings = await validateDocumentation(repo);
    expect(findings).toEqual([
      {
        file: 'documentation/index.md',
        line: 5,
        rule: 'broken-link',
        message: 'guides/gone.md points at a page or file that does not exist',
      },
      {
        file: 'mkdocs.yml',
        line: 10,
        rule: 'navigation',
        message: 'Navigation entry "guides/missing.md" points at a page that does not exist',
      },
    ]);
  });

  it('reports an mkdocs.yml that is not YAML, and a missing docs_dir', async () => {
    await writeTree(repo, { 'mkdocs.yml': 'site_name: [unclosed\n' });
    expect((await validateDocumentation(repo)).map((f) => f.rule)).toEqual(['config']);
    await writeTree(repo, { 'mkdocs.yml': 'site_name: x\n' });
    expect(await validateDocumentation(repo)).toEqual([
      { file: 'mkdocs.yml', rule: 'config', message: 'docs_dir docs does not exist' },
    ]);
  });

  it('resolves site-absolute links against a Mintlify site in a subdirectory', async () => {
    await writeTree(repo, {
      'README.md': '[Docs](docs/) [Guide](docs/guide.mdx)\n',
      'docs/docs.json': JSON.stringify({ navigation: { pages: ['guide', 'missing'] } }),
      'docs/guide.mdx': '[Self](/guide) [Gone](/gone)\n',
    });
    expect((await validateDocumentation(repo)).map((f) => `${f.file} ${f.rule} ${f.message}`)).toEqual([
      'docs/docs.json navigation Navigation entry "missing" points at a page that does not exist',
      'docs/guide.mdx broken-link /gone points at a page or file that does not exist',
    ]);
  });

  it('treats .md as CommonMark outside Mintlify sites, and as MDX inside them', async () => {
    await writeTree(repo, { 'notes.md': '# Notes\n\n<!-- fine --> {not an expression\n' });
    expect(await validateDocumentation(repo)).toEqual([]);
    await writeTree(repo, { 'docs.json': JSON.stringify({ navigation: { pages: ['notes'] } }) });
    expect((await validateDocumentation(repo)).map((f) => f.rule)).toEqual(['syntax']);
  });

  it('ignores a docs.json that is not a Mintlify configuration', async () => {
    await writeTree(repo, { 'docs.json': '{"version": 1}', 'page.mdx': '# Page\n' });
    expect(await validateDocumentation(repo)).toEqual([]);
  });

  it('fails for a working copy that does not exist', async () => {
    await expect(validateDocumentation(join(repo, 'missing'))).rejects.toThrow();
  });
});
