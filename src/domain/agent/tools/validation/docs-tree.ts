import { createHash } from 'node:crypto';
import { open, realpath, stat } from 'node:fs/promises';
import { walkFiles } from '../walk.ts';
import { READ_FLAGS } from '../workspace.ts';

/** A file of a documentation tree: its repository-relative path and, when known, its git blob id. */
export interface TreeFile {
  path: string;
  /** The git blob id (SHA-1 of "blob <size>\0<content>"), or null until the content is read. */
  blob: string | null;
}

/**
 * The files of a repository at one moment: a working copy on disk, or a commit (read from git,
 * in integrations/). Symbolic links are not files here, and `.git` and `node_modules` are left out.
 */
export interface DocsTree {
  files(): Promise<TreeFile[]>;
  /** The text of each path that is a readable file of at most `maxBytes`; others are absent. */
  readMany(paths: readonly string[], maxBytes: number): Promise<Map<string, string>>;
}

/** The git blob id of `text`, as git would give it: it keys parses across working copies and commits. */
export function blobIdOf(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

const READ_CONCURRENCY = 64;

/** A working copy on disk. Files are read without following symbolic links. */
export function workingTree(dir: string): DocsTree {
  let root: Promise<string> | null = null;
  const resolved = () => {
    root ??= realpath(dir);
    return root;
  };
  return {
    async files() {
      const base = await resolved();
      const files: TreeFile[] = [];
      for await (const entry of walkFiles({ absolute: base, relative: '.' })) {
        if (entry.kind === 'file') files.push({ path: entry.relative, blob: null });
      }
      return files;
    },
    async readMany(paths, maxBytes) {
      const base = await resolved();
      const out = new Map<string, string>();
      for (let i = 0; i < paths.length; i += READ_CONCURRENCY) {
        const batch = paths.slice(i, i + READ_CONCURRENCY);
        const texts = await Promise.all(batch.map((path) => readSmallFile(`${base}/${path}`, maxBytes)));
        for (const [n, text] of texts.entries()) {
          const path = batch[n];
          if (path !== undefined && text !== null) out.set(path, text);
        }
      }
      return out;
    },
  };
}

async function readSmallFile(absolute: string, maxBytes: number): Promise<string | null> {
  const info = await stat(absolute).catch(() => null);
  if (info === null || !info.isFile() || info.size > maxBytes) return null;
  const handle = await open(absolute, READ_FLAGS).catch(() => null);
  if (handle === null) return null;
  try {
    return (await handle.readFile()).toString('utf8');
  } finally {
    await handle.close();
  }
}
