import { stat } from 'node:fs/promises';
import picomatch from 'picomatch';
import { Type } from 'typebox';
import {
  type ConnectedContext,
  listConnected,
  RepositoryParam,
  withRepositoryParam,
} from './connected-files.ts';
import { defineTool } from './define-tool.ts';
import type { ResolvedToolLimits } from './limits.ts';
import { capOutput } from './output.ts';
import { ToolError } from './tool-error.ts';
import { walkFiles } from './walk.ts';
import type { Workspace } from './workspace.ts';

/** A glob matcher over paths relative to the listed directory; dotfiles match like any other. */
export function globMatcher(pattern: string | undefined): (relative: string) => boolean {
  if (pattern === undefined || pattern === '' || pattern === '**' || pattern === '**/*') return () => true;
  try {
    return picomatch(pattern, { dot: true });
  } catch {
    throw new ToolError(`invalid glob pattern: ${pattern}`);
  }
}

/** The directory a listing or search starts from, checked like every other path. */
export async function startDirectory(workspace: Workspace, input: string | undefined) {
  const dir = await workspace.existing(input ?? '.');
  const isDirectory = (await stat(dir.real)).isDirectory();
  return { ...dir, isDirectory };
}

/** `relative` (from the repository root) as seen from `base` (also from the root). */
export function relativeTo(base: string, relative: string): string {
  return base === '.' ? relative : relative.slice(base.length + 1);
}

export function listFilesTool(
  workspace: Workspace,
  limits: ResolvedToolLimits,
  connected?: ConnectedContext,
) {
  return defineTool({
    workspace,
    description:
      'List files of the repository whose path matches a glob pattern, in name order, one path per line ' +
      '(relative to the repository root). `*` matches within one directory level, `**` across levels, ' +
      '`{a,b}` either: "**/*.mdx" finds every MDX page, "guides/*" the files directly in guides/. ' +
      'The .git and node_modules directories are never listed.' +
      (connected
        ? ' With `repository`, list a connected repository instead (vendored folders and what its .gitignore names are left out).'
        : ''),
    schema: withRepositoryParam(
      Type.Object(
        {
          repository: RepositoryParam,
          pattern: Type.Optional(
            Type.String({
              description: 'Glob matched against paths relative to `path`. Default "**/*" (everything).',
            }),
          ),
          path: Type.Optional(
            Type.String({
              minLength: 1,
              description: 'Directory to list, relative to the repository root. Default: the root.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      connected,
    ),
    run: async (input, signal) => {
      const matches = globMatcher(input.pattern);
      if (input.repository !== undefined && connected) {
        const { listed, total, where } = await listConnected(
          connected,
          { repository: input.repository, path: input.path },
          matches,
          limits,
        );
        return listingOutput(listed, total, input.pattern, where, limits);
      }
      const start = await startDirectory(workspace, input.path);
      if (!start.isDirectory) throw new ToolError(`${start.relative} is a file, not a directory`);

      const listed: string[] = [];
      let total = 0;
      for await (const entry of walkFiles({ absolute: start.real, relative: start.relative }, signal)) {
        if (!matches(relativeTo(start.relative, entry.relative))) continue;
        total++;
        if (listed.length < limits.maxListedFiles) {
          listed.push(entry.kind === 'symlink' ? `${entry.relative} (symbolic link)` : entry.relative);
        }
      }
      const where = start.relative === '.' ? 'the repository' : start.relative;
      return listingOutput(listed, total, input.pattern, where, limits);
    },
  });
}

/** The paths listed, with how many more matched, or why there are none; cut to the output limit. */
function listingOutput(
  listed: string[],
  total: number,
  pattern: string | undefined,
  where: string,
  limits: ResolvedToolLimits,
): string {
  if (total === 0) return `No files match ${pattern ?? '**/*'} in ${where}.`;
  const more =
    total > listed.length
      ? `\n[${total - listed.length} more matching files not shown; narrow the pattern or path]`
      : '';
  return capOutput(
    listed.join('\n') + more,
    limits.maxOutputChars,
    'Narrow the pattern or path to see the rest.',
  );
}
