import type { DocsTree, TreeFile } from '../../domain/agent/tools/validation/docs-tree.ts';
import type { GitRunner, GitRunOptions } from './git-runner.ts';

// Regular files only: symbolic links (120000) and submodules (160000) are not followed.
const REGULAR = /^(100644|100755) blob ([0-9a-f]{40,64})\t(.*)$/s;
const SKIPPED = /(^|\/)(\.git|node_modules)(\/|$)/;

/**
 * The files of a commit, read from a repository's object store without checking anything out:
 * paths and blob ids from `ls-tree`, contents in one `cat-file --batch` per request.
 */
export function committedTree(
  git: GitRunner,
  repository: Pick<GitRunOptions, 'cwd' | 'bare'>,
  sha: string,
): DocsTree {
  let listing: Promise<TreeFile[]> | null = null;
  const files = () => {
    listing ??= git
      .run(['ls-tree', '-r', '-z', '--full-tree', sha], { ...repository, timeoutMs: 120_000 })
      .then(({ stdout }) =>
        stdout
          .split('\0')
          .map((entry) => REGULAR.exec(entry))
          .filter((match): match is RegExpExecArray => match !== null && !SKIPPED.test(match[3] ?? ''))
          .map((match) => ({ path: match[3] ?? '', blob: match[2] ?? null })),
      );
    return listing;
  };
  return {
    files,
    async readMany(paths, maxBytes) {
      const blobOf = new Map((await files()).map((file) => [file.path, file.blob]));
      const wanted = paths.flatMap((path) => {
        const blob = blobOf.get(path);
        return blob ? [{ path, blob }] : [];
      });
      const out = new Map<string, string>();
      if (wanted.length === 0) return out;
      const { stdout } = await git.run(['cat-file', '--batch'], {
        ...repository,
        input: `${wanted.map((w) => w.blob).join('\n')}\n`,
        binary: true,
        maxBuffer: 1024 * 1024 * 1024,
        timeoutMs: 120_000,
      });
      // "<id> blob <size>\n<content>\n" per object, in the order asked.
      let at = 0;
      for (const { path } of wanted) {
        const header = stdout.indexOf('\n', at);
        if (header === -1) break;
        const size = Number(stdout.slice(at, header).split(' ')[2]);
        if (!Number.isFinite(size)) break;
        const start = header + 1;
        if (size <= maxBytes)
          out.set(path, Buffer.from(stdout.slice(start, start + size), 'latin1').toString('utf8'));
        at = start + size + 1;
      }
      return out;
    },
  };
}
