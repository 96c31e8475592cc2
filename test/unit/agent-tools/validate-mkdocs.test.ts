import { beforeEach, describe, expect, it } from 'vitest';
import { validateDocumentation } from '../../../src/domain/agent/tools/index.ts';
import { tempDir, writeTree } from './fixtures.ts';

/**
 * mkdocs sites shaped like published ones that validated with false findings: each builds as
 * it is, so each must validate with nothing but the problems planted on purpose.
 */

let repo: string;
beforeEach(async () => {
  repo = await tempDir('docwright-mkdocs-');
});

const summary = async () =>
  (await validateDocumentation(repo)).map(
    (f) => `${f.file}${f.line ? `:${f.line}` : ''} ${f.rule} ${f.message}`,
  );

describe('mkdocs includes', () => {
  it("resolve an included file's links from the page that includes it, and report broken ones at the included line", async () => {
    await writeTree(repo, {
      'mkdocs.yml': [
        'site_name: Acme',
        'nav:',
        '  - index.md',
        '  - guide/setup.md',
        'markdown_extensions:',
        '  - pymdownx.snippets:',
        '      base_path: [includes]',
        '  - markdown_include.include:',
        '      base_path: docs',
      ].join('\n'),
      'docs/index.md': '# Home\n\n--8<-- "install-links.md"\n',
      'docs/guide/setup.md':
        '# Setup\n\n{!.shared/see-also.md!}\n\n```text\n;--8<-- "not-included.md"\n```\n',
      'docs/install.md': '# Install\n',
      'docs/guide/reference.md': '# Reference\n',
      // Written for the page that includes it: install.md is docs/install.md, not includes/install.md.
      'includes/install-links.md':
        'See [install](install.md) and [the guide](guide/setup.md).\n\nAnd [gone](gone.md).\n',
      'docs/.shared/see-also.md': 'See also [the reference](reference.md).\n',
      'includes/not-included.md': '[nowhere](nowhere.md)\n',
    });
    expect(await summary()).toEqual([
      'includes/install-links.md:3 broken-link gone.md points at a page or file that does not exist',
      'includes/not-included.md:1 broken-link nowhere.md points at a page or file that does not exist',
    ]);
  });

  it('are plain text when the extension is not enabled', async () => {
    await writeTree(repo, {
      'mkdocs.yml': 'site_name: Acme\n',
      'docs/index.md': '# Home\n\n--8<-- "links.md"\n',
      'docs/install.md': '# Install\n',
      'includes/links.md': '[install](install.md)\n',
    });
    expect(await summary()).toEqual([
      'includes/links.md:1 broken-link install.md points at a page or file that does not exist',
    ]);
  });
});

describe('mkdocs configuration', () => {
  it('builds with duplicate keys, pages its hooks write and nav links to copied HTML', async () => {
    await writeTree(repo, {
      'mkdocs.yml': [
        'site_name: Acme',
        'nav:',
        '  - index.md',
        '  - Changelog: changelog.md',
        '  - API: api/',
        '  - Gone: gone.md',
        'hooks:',
        '  - docs/plugins/main.py',
        'plugins:',
        '  - search',
        '  - redirects:',
        '      redirect_maps:',
        "        'old.md': 'index.md'",
        "        'old.md': 'index.md'",
      ].join('\n'),
      'docs/plugins/main.py': "def on_pre_build(config):\n    (DOCS / 'changelog.md').write_text(HISTORY)\n",
      'docs/index.md': '# Home\n\n[old](old.md)\n',
      'docs/api/index.html': '<html></html>\n',
    });
    expect(await summary()).toEqual([
      'mkdocs.yml:6 navigation Navigation entry "gone.md" points at a page that does not exist',
    ]);
  });

  it('reports link definitions only where a link uses them: an unused one renders nothing', async () => {
    await writeTree(repo, {
      'mkdocs.yml': 'site_name: Acme\n',
      'docs/index.md':
        '# Home\n\nSee the [guide] and the design principles.\n\n[guide]: guide.md\n[design principles]: principles.md\n',
    });
    expect(await summary()).toEqual([
      'docs/index.md:5 broken-link guide.md points at a page or file that does not exist',
    ]);
  });
});
