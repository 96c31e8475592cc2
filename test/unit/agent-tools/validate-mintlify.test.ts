import { beforeEach, describe, expect, it } from 'vitest';
import { validateDocumentation } from '../../../src/domain/agent/tools/index.ts';
import { tempDir, writeTree } from './fixtures.ts';

/**
 * Mintlify sites shaped like published ones that validated with false findings: each builds as
 * it is, so each must validate with nothing but the problems planted on purpose.
 */

let repo: string;
beforeEach(async () => {
  repo = await tempDir('docwright-mintlify-');
});

const summary = async () =>
  (await validateDocumentation(repo)).map(
    (f) => `${f.file}${f.line ? `:${f.line}` : ''} ${f.rule} ${f.message}`,
  );

const page = (title: string, body = '') => `---\ntitle: ${title}\n---\n\n${body}\n`;

describe('Mintlify pages generated from OpenAPI descriptions', () => {
  it('are served at the URL each operation sets with x-mint.href, under a language prefix too', async () => {
    const operation = (href: string) => ({ summary: 'Send', 'x-mint': { href } });
    await writeTree(repo, {
      'docs.json': JSON.stringify({
        navigation: {
          languages: [
            {
              language: 'en',
              groups: [
                { group: 'Guides', pages: ['en/index'] },
                { group: 'Chat', openapi: 'en/api-reference/openapi.json', pages: ['POST /chat'] },
              ],
            },
            {
              language: 'ja',
              groups: [
                { group: 'ガイド', pages: ['ja/index'] },
                {
                  group: 'チャット',
                  openapi: { source: '/ja/api-reference/openapi.yaml' },
                  pages: ['POST /chat'],
                },
              ],
            },
          ],
        },
      }),
      'en/api-reference/openapi.json': JSON.stringify({
        openapi: '3.1.0',
        paths: { '/chat': { post: operation('/en/api-reference/chat/send-message') } },
      }),
      'ja/api-reference/openapi.yaml': [
        'openapi: 3.1.0',
        'paths:',
        '  /chat:',
        '    post:',
        '      summary: Send',
        '      x-mint:',
        '        href: /ja/api-reference/chat/send-message',
      ].join('\n'),
      'en/index.mdx': page(
        'Home',
        '[send](/en/api-reference/chat/send-message) [not an operation](/en/api-reference/chat/gone)',
      ),
      'ja/index.mdx': page('ホーム', '<Card href="/ja/api-reference/chat/send-message" title="送信" />'),
    });
    expect(await summary()).toEqual([
      'en/index.mdx:5 broken-link /en/api-reference/chat/gone points at a page or file that does not exist',
    ]);
  });
});

describe("Mintlify's default ignored files", () => {
  it('are neither checked nor served: README.md and the like, output folders at the root', async () => {
    await writeTree(repo, {
      'docs.json': JSON.stringify({
        navigation: { groups: [{ group: 'Start', pages: ['index', 'guides/build/first-app'] }] },
      }),
      'README.md': '# Docs\n\nRun `mint dev`. See [the style guide](writing-guides/style.md) <Unclosed\n',
      'CONTRIBUTING.md': '[guide](nowhere.md)\n',
      'dist/index.mdx': '<Broken\n',
      'index.mdx': page('Home', '[first app](/guides/build/first-app) [readme](/README)'),
      // A "build" folder below the root is content like any other.
      'guides/build/first-app.mdx': page('First app'),
    });
    expect(await summary()).toEqual([
      'index.mdx:5 broken-link /README points at a page or file that does not exist',
    ]);
  });
});
