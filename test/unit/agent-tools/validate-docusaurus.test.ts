import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { validateDocumentation } from '../../../src/domain/agent/tools/index.ts';
import { tempDir, writeTree } from './fixtures.ts';

/**
 * Docusaurus sites shaped like published ones that validated with false findings: each builds
 * as it is, so each must validate with nothing but the problems planted on purpose. The site
 * lives in website/ and its docs beside it, in ../docs, as in many repositories.
 */

let repo: string;
beforeEach(async () => {
  repo = await tempDir('docwright-docusaurus-');
});

const summary = async () =>
  (await validateDocumentation(repo)).map(
    (f) => `${f.file}${f.line ? `:${f.line}` : ''} ${f.rule} ${f.message}`,
  );

const page = (title: string, body = '') => `---\ntitle: ${title}\n---\n\n${body}\n`;

describe('the Docusaurus configuration', () => {
  it('is parsed, not matched with a pattern: comments and functions inside the options do not hide the docs path', async () => {
    await writeTree(repo, {
      'website/docusaurus.config.js': [
        "const path = require('path');",
        'module.exports = {',
        "  baseUrl: '/',",
        '  presets: [',
        '    [',
        "      '@docusaurus/preset-classic',",
        '      ({',
        '        docs: {',
        "          // homePageId: 'getting-started', { not code",
        '          editUrl: ({ locale, docPath }) => {',
        "            return 'https://example.com/' + locale + '/' + docPath;",
        '          },',
        "          path: '../docs',",
        "          sidebarPath: path.resolve(__dirname, './sidebars.json'),",
        '        },',
        '      }),',
        '    ],',
        '  ],',
        '};',
      ].join('\n'),
      'docs/intro.md': page('Intro', '[configuration](configuration#options) [images](/img/logo.png)'),
      'docs/configuration.md': page('Configuration', '[missing](/docs/nope)'),
      'website/static/img/logo.png': 'png',
    });
    expect(await summary()).toEqual([
      'docs/configuration.md:5 broken-link /docs/nope points at a page or file that does not exist',
    ]);
  });

  it('is never run, and its TypeScript, spreads and plugin instances are read', async () => {
    const marker = join(repo, 'ran.txt');
    await writeTree(repo, {
      'website/docusaurus.config.ts': [
        "import type { Config } from '@docusaurus/types';",
        "import { writeFileSync } from 'node:fs';",
        `writeFileSync(${JSON.stringify(marker)}, 'the configuration ran');`,
        'const common = { showLastUpdateTime: true } satisfies Record<string, unknown>;',
        'const config: Config = {',
        "  baseUrl: '/',",
        '  trailingSlash: false,',
        "  presets: [['classic', { docs: { path: '../docs', ...common }, blog: false }]],",
        '  plugins: [',
        "    ['content-docs', { id: 'architecture', path: 'architecture', routeBasePath: '/architecture', ...common }],",
        '  ],',
        '};',
        'export default config;',
      ].join('\n'),
      'docs/intro.md': page('Intro', '[architecture](/architecture/overview) [gone](/architecture/gone)'),
      'website/architecture/overview.md': page('Overview', '[back](/docs/intro)'),
    });
    expect(await summary()).toEqual([
      'docs/intro.md:5 broken-link /architecture/gone points at a page or file that does not exist',
    ]);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('Docusaurus content', () => {
  it('is only what the content plugins read: fixtures and READMEs in the site folder are not pages', async () => {
    await writeTree(repo, {
      'website/docusaurus.config.js':
        "module.exports = { presets: [['classic', { docs: { path: '../docs' } }]] };\n",
      'docs/intro.md': page('Intro'),
      'website/README.md': '# Website\n\nRun [the docs](../docs/missing.md) locally.\n',
      'website/src/__tests__/__fixtures__/broken.md': '[broken](./nowhere.md)\n',
      'website/blog/2024-01-01-hello.md': page('Hello', '[intro](/docs/intro) [gone](/docs/gone)'),
      // Outside any site: a test fixture is not documentation; a README is read on the code host.
      'packages/parser/tests/fixtures/links.md': '[broken on purpose](./missing.md)\n',
      'README.md': '# Repo\n\n[docs](docs/intro.md) [gone](docs/gone.md)\n',
    });
    expect(await summary()).toEqual([
      'README.md:3 broken-link docs/gone.md points at a page or file that does not exist',
      'website/blog/2024-01-01-hello.md:5 broken-link /docs/gone points at a page or file that does not exist',
    ]);
  });

  it('has versions: the last one at the plain path, the current one at next, the others at their name', async () => {
    await writeTree(repo, {
      'website/docusaurus.config.js':
        "module.exports = { presets: [['classic', { docs: { path: '../docs' } }]] };\n",
      'website/versions.json': JSON.stringify(['2.0', '1.0']),
      'docs/intro.md': page(
        'Intro (next)',
        '[next only](new-feature) [stable](/docs/intro) [old](/docs/1.0/intro)',
      ),
      'docs/new-feature.md': page('New'),
      'website/versioned_docs/version-2.0/intro.md': page(
        'Intro',
        '[next](/docs/next/new-feature) [not in 2.0](new-feature) [no such version](/docs/3.0/intro)',
      ),
      'website/versioned_docs/version-1.0/intro.md': page('Intro (1.0)', '[also 1.0](./legacy.md)'),
      'website/versioned_docs/version-1.0/legacy.md': page('Legacy'),
    });
    expect(await summary()).toEqual([
      'website/versioned_docs/version-2.0/intro.md:5 broken-link new-feature points at a page or file that does not exist',
      'website/versioned_docs/version-2.0/intro.md:5 broken-link /docs/3.0/intro points at a page or file that does not exist',
    ]);
  });

  it('resolves Markdown file links from the content folder, then the site folder, then the page folder', async () => {
    await writeTree(repo, {
      'website/docusaurus.config.js':
        "module.exports = { presets: [['classic', { docs: { path: '../docs' } }]] };\n",
      'docs/api/store.md': page('Store'),
      'docs/understanding/glossary.md': page(
        'Glossary',
        [
          '[store](api/store.md#dispatch)', // from the content folder
          '[sibling](terms.md)', // from the page's folder
          '[site file](/src/pages/about.md)', // from the site folder
          '[relative only](./api/store.md)', // ./ is relative to the page: there is none here
        ].join('\n'),
      ),
      'docs/understanding/terms.md': page('Terms'),
      'website/src/pages/about.md': '# About\n',
    });
    expect(await summary()).toEqual([
      'docs/understanding/glossary.md:8 broken-link ./api/store.md points at a page or file that does not exist',
    ]);
  });

  it('serves a category index at its folder whatever its id, and reads frontmatter written with CRLF', async () => {
    await writeTree(repo, {
      'docusaurus.config.js': 'export default {};\n',
      'docs/releases/releases.md':
        '---\r\nid: releases\r\ntitle: Releases\r\n---\r\n\r\n[policy](./releases/versioning-policy)\r\n',
      'docs/releases/policy.md':
        '---\r\nid: versioning-policy\r\ntitle: Policy\r\n---\r\n\r\n[up](/docs/releases)\r\n',
      'docs/intro.md': page(
        'Intro',
        '[policy](/docs/releases/versioning-policy) [by name](/docs/releases/policy)',
      ),
    });
    expect(await summary()).toEqual([
      'docs/intro.md:5 broken-link /docs/releases/policy points at a page or file that does not exist',
    ]);
  });
});
