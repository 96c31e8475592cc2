import { readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { validateDocumentation } from '../../../src/domain/agent/tools/index.ts';
import { blobIdOf } from '../../../src/domain/agent/tools/validation/docs-tree.ts';
import type { ParsedPage } from '../../../src/domain/agent/tools/validation/markdown.ts';
import { forgetParses, storeWritten } from '../../../src/domain/agent/tools/validation/parse-cache.ts';
import { PARSE_FORMAT, setParseStore } from '../../../src/domain/agent/tools/validation/parse-store.ts';
import { FileParseStore } from '../../../src/integrations/parse-store/file-parse-store.ts';
import { tempDir, writeTree } from './fixtures.ts';

const logger = pino({ level: 'silent' });
const parsed = (url: string): ParsedPage => ({
  problems: [],
  references: [{ url, line: 3, kind: 'link' }],
  route: {},
  includes: [],
});
const key = (text: string, format = 'mdx') => `${blobIdOf(text)}.${format}`;

afterEach(() => setParseStore(null));

describe('the file parse store', () => {
  it('keeps parses by blob and format, and answers nothing for what it cannot read', async () => {
    const dir = await tempDir('docwright-parses-');
    const store = new FileParseStore(dir, logger);
    await store.put(key('a'), parsed('/a'));
    expect(await store.get(key('a'))).toEqual(parsed('/a'));
    expect(await store.get(key('a', 'md'))).toBeUndefined();
    expect(await store.get('../../etc/passwd')).toBeUndefined();
    const file = join(dir, PARSE_FORMAT, key('a').slice(0, 2), `${key('a')}.json`);
    await writeFile(file, '{"problems": [');
    expect(await store.get(key('a'))).toBeUndefined();
    await writeFile(file, '{"some": "other shape"}');
    expect(await store.get(key('a'))).toBeUndefined();
  });

  it('tidies: another format, half-written files, and the oldest beyond its size go', async () => {
    const dir = await tempDir('docwright-parses-');
    await writeTree(dir, { 'parse-v0/ab/old.json': '{}' });
    const store = new FileParseStore(dir, logger, { maxEntries: 10 });
    for (let i = 0; i < 12; i++) {
      await store.put(key(`page ${i}`), parsed(`/${i}`));
      const file = join(dir, PARSE_FORMAT, key(`page ${i}`).slice(0, 2), `${key(`page ${i}`)}.json`);
      await utimes(file, new Date(1_000_000 + i * 1000), new Date(1_000_000 + i * 1000));
    }
    const folder = join(dir, PARSE_FORMAT, key('page 0').slice(0, 2));
    await writeFile(join(folder, 'x.json.123.tmp'), '{');
    await store.tidy();
    expect(await readdir(dir)).toEqual([PARSE_FORMAT]);
    const left = await Promise.all(
      Array.from({ length: 12 }, (_, i) => store.get(key(`page ${i}`)).then((found) => found !== undefined)),
    );
    // Nine tenths of 10 kept: the newest nine.
    expect(left).toEqual([false, false, false, true, true, true, true, true, true, true, true, true]);
    await expect(stat(join(folder, 'x.json.123.tmp'))).rejects.toThrow();
  });
});

describe('validation with a parse store', () => {
  it("stores what it parses, and a new process reads a page's parse back instead of parsing it", async () => {
    const parses = await tempDir('docwright-parses-');
    const store = new FileParseStore(parses, logger);
    setParseStore(store);
    const site = await tempDir('docwright-site-');
    const index = '---\ntitle: Home\n---\n\n[gone](/gone)\n';
    await writeTree(site, {
      'docs.json': JSON.stringify({ navigation: { groups: [{ group: 'Start', pages: ['index'] }] } }),
      'index.mdx': index,
    });
    forgetParses();
    expect((await validateDocumentation(site)).map((f) => f.message)).toEqual([
      '/gone points at a page or file that does not exist',
    ]);
    // Written in the background: wait for it, then change what it says, to see it read back.
    await storeWritten();
    const file = join(parses, PARSE_FORMAT, key(index).slice(0, 2), `${key(index)}.json`);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(expect.objectContaining({ includes: [] }));
    await writeFile(file, JSON.stringify(parsed('/said-by-the-store')));
    forgetParses();
    expect((await validateDocumentation(site)).map((f) => f.message)).toEqual([
      '/said-by-the-store points at a page or file that does not exist',
    ]);
  });
});
