import { posix } from 'node:path';

/** Every file and directory of the tree being validated, to resolve links without touching it again. */
export class RepositoryIndex {
  readonly files = new Set<string>();
  readonly directories = new Set<string>(['.']);

  constructor(paths: Iterable<string>) {
    for (const path of paths) this.add(path);
  }

  private add(relative: string): void {
    this.files.add(relative);
    for (
      let dir = posix.dirname(relative);
      dir !== '.' && !this.directories.has(dir);
      dir = posix.dirname(dir)
    ) {
      this.directories.add(dir);
    }
  }

  /** The page or file a path without its extension stands for, as docs sites resolve it. */
  resolvePage(target: string, accept: (file: string) => boolean = () => true): string | null {
    const base = target.replace(/\/+$/, '') || '.';
    const candidates = [
      base,
      `${base}.mdx`,
      `${base}.md`,
      posix.join(base, 'index.mdx'),
      posix.join(base, 'index.md'),
      posix.join(base, 'README.md'),
    ];
    return candidates.find((candidate) => this.files.has(candidate) && accept(candidate)) ?? null;
  }
}

/** `a/b/../c` within the repository, or null when it climbs out of it. */
export function inRepository(path: string): string | null {
  const normal = posix.normalize(path).replace(/\/+$/, '') || '.';
  return normal === '..' || normal.startsWith('../') || normal.startsWith('/') ? null : normal;
}
