import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ParsedPage } from '../../domain/agent/tools/validation/markdown.ts';
import {
  isParsedPage,
  PARSE_FORMAT,
  type ParseStore,
} from '../../domain/agent/tools/validation/parse-store.ts';

const KEY = /^[0-9a-f]{40}\.(md|mdx)$/;

/**
 * Parses of documentation pages kept as files, `<dir>/<format>/<ab>/<blob>.<md|mdx>.json`, so a
 * restarted server does not parse a site again (about 1 KB a page; a 1,000-page site reads back
 * in a tenth of a second where it parsed in seconds). Files of another PARSE_FORMAT are removed,
 * and the oldest go when there are more than `maxEntries`. Writes are atomic (a temporary file
 * renamed), so two processes may share the folder.
 */
export class FileParseStore implements ParseStore {
  private readonly root: string;
  private readonly maxEntries: number;
  private readonly logger: Logger;
  private readonly madeFolders = new Set<string>();

  constructor(dir: string, logger: Logger, options: { maxEntries?: number } = {}) {
    this.root = path.join(dir, PARSE_FORMAT);
    this.maxEntries = options.maxEntries ?? 100_000;
    this.logger = logger;
  }

  async get(key: string): Promise<ParsedPage | undefined> {
    if (!KEY.test(key)) return undefined;
    const text = await readFile(this.fileOf(key), 'utf8').catch(() => null);
    if (text === null) return undefined;
    try {
      const value: unknown = JSON.parse(text);
      return isParsedPage(value) ? value : undefined;
    } catch {
      return undefined;
    }
  }

  async put(key: string, parsed: ParsedPage): Promise<void> {
    if (!KEY.test(key)) return;
    const file = this.fileOf(key);
    const folder = path.dirname(file);
    if (!this.madeFolders.has(folder)) {
      await mkdir(folder, { recursive: true });
      this.madeFolders.add(folder);
    }
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, JSON.stringify(parsed));
    await rename(temporary, file).catch(async (error: unknown) => {
      await rm(temporary, { force: true });
      throw error;
    });
  }

  /**
   * Removes what an older Docwright stored (another PARSE_FORMAT), then the oldest parses
   * beyond `maxEntries`, down to nine tenths of it. Run at start, in the background.
   */
  async tidy(): Promise<void> {
    const parent = path.dirname(this.root);
    for (const entry of await readdir(parent).catch(() => [])) {
      if (entry !== path.basename(this.root))
        await rm(path.join(parent, entry), { recursive: true, force: true });
    }
    const files: { file: string; mtimeMs: number }[] = [];
    for (const folder of await readdir(this.root).catch(() => [])) {
      for (const name of await readdir(path.join(this.root, folder)).catch(() => [])) {
        const file = path.join(this.root, folder, name);
        if (name.endsWith('.tmp')) {
          // A write a stopped process left half done.
          await rm(file, { force: true });
          continue;
        }
        const info = await stat(file).catch(() => null);
        if (info !== null) files.push({ file, mtimeMs: info.mtimeMs });
      }
    }
    if (files.length <= this.maxEntries) return;
    files.sort((a, b) => a.mtimeMs - b.mtimeMs);
    const extra = files.slice(0, files.length - Math.floor(this.maxEntries * 0.9));
    for (const { file } of extra) await rm(file, { force: true });
    this.logger.info({ removed: extra.length, kept: files.length - extra.length }, 'parse store tidied');
  }

  private fileOf(key: string): string {
    return path.join(this.root, key.slice(0, 2), `${key}.json`);
  }
}
