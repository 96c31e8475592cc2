import { beforeEach, describe, expect, it } from 'vitest';
import { validateDocumentation } from '../../../src/domain/agent/tools/index.ts';
import { tempDir, writeTree } from './fixtures.ts';

/**
 * Small sites shaped like published ones, one per cause of a false (or missed) finding seen on
 * real repositories: each builds as it is, so each must validate with nothing but the
 * problems planted on purpose.
 */

let repo: string;
beforeEach(async () => {
  repo = await tempDir('docwright-sites-');
});

const summary = async () =>
  (await validateDocumentation(repo)).map(
    (f) => `${f.file}${f.line ? `:${f.line}` : ''} ${f.rule} ${f.message}`,
  );

const page = (title: string, body = '') => `---\ntitle: ${title}\n---\n\n${body}\n`;

describe('Mintlify sites', () => {
  const docsJson = (extra: Record<string, unknown> = {}) =>
    JSON.stringify(
      {
        name: 'Acme',
        navigation: { groups: [{ group: 'Start', pages: ['index', 'quickstart'] }] },
        ...extra,
      },
      null,
      2,
    );

  it('follows redirects, also those kept in another file through $ref', async () => {
    await writeTree(repo, {
      'docs.json': docsJson({
        redirects: [
          { source: '/old-start', destination: '/quickstart' },
          { source: '/blog/:slug*', destination: 'https://acme.example/blog/:slug*' },
        ],
      }),
      'index.mdx': page('Home', '[old](/old-start) [post](/blog/2024/launch) [gone](/never-was)'),
      'quickstart.mdx': page('Quickstart'),
    });
    expect(await summary()).toEqual([
      'index.mdx:5 broken-link /never-was points at a page or file that does not exist',
    ]);
    await writeTree(repo, {
      'docs.json': docsJson({ redirects: { $ref: 'config/redirects.json' } }),
      'config/redirects.json': JSON.stringify([{ source: '/never-was', destination: '/quickstart' }]),
      'index.mdx': page('Home', '[moved](/never-was)'),
    });
    expect(await summary()).toEqual([]);
  });

  it('follows $ref in the navigation, and reports a broken entry at its line in the referenced file', async () => {
    await writeTree(repo, {
      'docs.json': JSON.stringify(
        {
          name: 'Acme',
          navigation: {
            languages: [
              { language: 'en', groups: [{ group: 'Start', pages: ['index'] }] },
              { language: 'fr', $ref: 'fr.json' },
              { language: 'es', $ref: 'es.json' },
            ],
          },
        },
        null,
        2,
      ),
      'fr.json': JSON.stringify(
        { groups: [{ group: 'Démarrer', pages: ['fr/index', 'fr/absente'] }] },
        null,
        2,
      ),
      'index.mdx': page('Home'),
      'fr/index.mdx': page('Accueil'),
    });
    expect(await summary()).toEqual([
      'docs.json:22 config "$ref": "es.json" names a file that does not exist',
      'fr.json:7 navigation Navigation entry "fr/absente" points at a page that does not exist',
    ]);
  });

  it('knows the pages Mintlify makes: the .md twin of every page, llms.txt, pages from an OpenAPI description', async () => {
    await writeTree(repo, {
      'docs.json': JSON.stringify({
        navigation: {
          tabs: [
            { tab: 'Guides', groups: [{ group: 'Start', pages: ['index', 'quickstart'] }] },
            {
              tab: 'API',
              groups: [
                { group: 'Endpoints', openapi: 'openapi.json', pages: ['api-reference/introduction'] },
              ],
            },
            { tab: 'SDK', groups: [{ group: 'SDK', pages: ['openapi.json GET /widgets'] }] },
          ],
        },
      }),
      'openapi.json': '{"openapi": "3.1.0"}',
      'index.mdx': page(
        'Home',
        '[as Markdown](/quickstart.md) [index](/llms.txt) [all](/llms-full.txt) [endpoint](/api-reference/widgets/list-widgets) [spec](/openapi.json)',
      ),
      'quickstart.mdx': page('Quickstart', '[missing twin](/nothing.md)'),
      'api-reference/introduction.mdx': page('API'),
    });
    expect(await summary()).toEqual([
      'quickstart.mdx:5 broken-link /nothing.md points at a page or file that does not exist',
    ]);
  });

  it("treats src as a link only on media elements, not on any component's prop", async () => {
    await writeTree(repo, {
      'docs.json': docsJson(),
      'index.mdx': page(
        'Home',
        '<Feedback src="docs-agent" />\n\n<Frame>\n  <img src="/images/missing.png" />\n</Frame>\n\n<Card href="/quickstart" title="Go" />',
      ),
      'quickstart.mdx': page('Quickstart'),
    });
    expect(await summary()).toEqual([
      'index.mdx:8 broken-link /images/missing.png points at a page or file that does not exist',
    ]);
  });

  it('leaves out what .mintignore excludes: not checked, and not served', async () => {
    await writeTree(repo, {
      'docs.json': docsJson(),
      '.mintignore': 'drafts/\n*.internal.mdx\n',
      'drafts/wip.mdx': '<Unclosed\n',
      'notes.internal.mdx': '[nowhere](/nowhere)\n',
      'index.mdx': page('Home', '[draft](/drafts/wip)'),
      'quickstart.mdx': page('Quickstart'),
    });
    expect(await summary()).toEqual([
      'index.mdx:5 broken-link /drafts/wip points at a page or file that does not exist',
    ]);
  });

  it('accepts links written with the /docs base path the site is served under', async () => {
    await writeTree(repo, {
      'docs.json': docsJson(),
      'index.mdx': page('Home', '[start](/docs/quickstart) [gone](/docs/gone)'),
      'quickstart.mdx': page('Quickstart'),
    });
    expect(await summary()).toEqual([
      'index.mdx:5 broken-link /docs/gone points at a page or file that does not exist',
    ]);
  });
});

describe('Docusaurus sites', () => {
  beforeEach(async () => {
    await writeTree(repo, {
      'docusaurus.config.js': [
        'const config = {',
        "  title: 'Acme',",
        "  url: 'https://acme.example',",
        "  baseUrl: '/acme/',",
        "  presets: [['classic', { docs: { sidebarPath: './sidebars.js' }, blog: { showReadingTime: true } }]],",
        '};',
        'export default config;',
      ].join('\n'),
      'sidebars.js': "export default { docs: [{ type: 'autogenerated', dirName: '.' }] };\n",
      'docs/intro.md': page('Intro', '<!-- HTML comments are fine in CommonMark pages -->'),
      'docs/guides/01-setup.md': page('Setup'),
      'docs/api/index.md': page('API'),
      'docs/renamed-file.md': '---\nid: renamed\n---\n\n# Renamed\n',
      'docs/slugged.md': '---\nslug: /special\n---\n\n# Special\n',
      'docs/_partial.mdx': 'A partial.\n',
      'static/img/logo.png': 'png',
      'src/pages/about.md': '# About\n',
      'src/components/Widget.js': 'export default function Widget() { return null; }\n',
      'blog/2024-01-01-launch.md': '# Launch\n',
    });
  });

  it('resolves routes by id, slug, number prefixes and index pages, static files, pages and the base URL', async () => {
    await writeTree(repo, {
      'docs/links.mdx': [
        "import Widget from '@site/src/components/Widget';",
        "import Partial from './_partial.mdx';",
        "import Theme from '@theme/Admonition';",
        '',
        '[intro](/docs/intro) [setup](/docs/guides/setup) [api](/docs/api) [renamed](/docs/renamed)',
        '[special](/docs/special) [logo](/img/logo.png) [about](/about) [base url](/acme/docs/intro)',
        '[file](./guides/01-setup.md) [url relative](./intro) [blog](/blog/launch) [escape](pathname:///raw.html)',
        '',
        '<Link to="/docs/api">API</Link>',
        '',
        '[broken route](/docs/nope) [broken image](/img/nope.png)',
        '',
        "import Gone from '@site/src/components/Gone';",
      ].join('\n'),
    });
    expect(await summary()).toEqual([
      'docs/links.mdx:11 broken-link /docs/nope points at a page or file that does not exist',
      'docs/links.mdx:11 broken-link /img/nope.png points at a page or file that does not exist',
      'docs/links.mdx:13 broken-import @site/src/components/Gone points at a page or file that does not exist',
    ]);
  });

  it('follows routeBasePath and a docs folder of another name', async () => {
    await writeTree(repo, {
      'docusaurus.config.js':
        "export default { baseUrl: '/', presets: [['classic', { docs: { path: 'handbook', routeBasePath: '/' } }]] };\n",
      'handbook/start.md': page('Start', '[next](/next) [elsewhere](/docs/start)'),
      'handbook/next.md': page('Next'),
    });
    expect(await summary()).toEqual([
      'handbook/start.md:5 broken-link /docs/start points at a page or file that does not exist',
    ]);
  });
});

describe('mkdocs sites', () => {
  it('resolves links relative to the page URL under use_directory_urls, site_url paths and redirects', async () => {
    await writeTree(repo, {
      'mkdocs.yml': [
        'site_name: Acme',
        'site_url: https://acme.example/docs/',
        'nav:',
        '  - Home: index.md',
        '  - Guide:',
        '      - guide/setup.md',
        '      - guide/install.md',
        'plugins:',
        '  - search',
        '  - redirects:',
        '      redirect_maps:',
        "        'old.md': 'guide/setup.md'",
      ].join('\n'),
      'docs/index.md': '# Home\n\n[setup](guide/setup.md) [old](old.md) [absolute](/docs/guide/install/)\n',
      'docs/guide/setup.md':
        '# Setup\n\n[by url](../install/) [by file](install.md) [home](../../) [nowhere](../nowhere/)\n',
      'docs/guide/install.md': '# Install\n',
    });
    expect(await summary()).toEqual([
      'docs/guide/setup.md:3 broken-link ../nowhere/ points at a page or file that does not exist',
    ]);
  });
});

describe('pages outside any site', () => {
  it('resolve to files and folders, as a code host shows them', async () => {
    await writeTree(repo, {
      'README.md': '# Repo\n\n[docs](docs/) [guide](docs/guide.md) [gone](docs/gone.md)\n',
      'docs/guide.md': '# Guide\n',
    });
    expect(await summary()).toEqual([
      'README.md:3 broken-link docs/gone.md points at a page or file that does not exist',
    ]);
  });
});
