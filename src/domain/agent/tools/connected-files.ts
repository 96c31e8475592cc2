import { type TObject, Type } from 'typebox';
import type {
  ConnectedContext,
  ConnectedRepository,
  ContextSearchResult,
} from '../research/connected-repositories.ts';

export type { ConnectedContext } from '../research/connected-repositories.ts';

import type { ResolvedToolLimits } from './limits.ts';
import { ToolError } from './tool-error.ts';
import { normalizeRepoPath } from './workspace.ts';

/** Searches every connected repository at once. */
export const ALL_CONNECTED = '*';

/**
 * Adds the optional `repository` argument to a tool's schema when the turn has connected
 * repositories, and takes it out otherwise (a model is not offered what it cannot use).
 */
export function withRepositoryParam<T extends TObject>(
  schema: T,
  connected: ConnectedContext | undefined,
  options: { all?: boolean } = {},
): T {
  const properties = schema.properties as Record<string, unknown>;
  if (!connected || connected.repositories.length === 0) {
    delete properties.repository;
    return schema;
  }
  const names = connected.repositories.map((r) => r.name).join(', ');
  properties.repository = Type.Optional(
    Type.String({
      minLength: 1,
      description:
        `A connected repository to read instead of the docs repository (read-only): one of ${names}` +
        (options.all ? `, or "${ALL_CONNECTED}" for all of them at once.` : '.') +
        ' Omit it for the docs repository.',
    }),
  );
  return schema;
}

/** The schema property every such tool declares; {@link withRepositoryParam} keeps or drops it. */
export const RepositoryParam = Type.Optional(Type.String({ minLength: 1 }));

function named(connected: ConnectedContext, name: string): ConnectedRepository {
  const found = connected.repositories.find((r) => r.name === name);
  if (found) return found;
  const names = connected.repositories.map((r) => r.name).join(', ');
  throw new ToolError(`no connected repository is named "${name}"; the connected repositories are ${names}`);
}

/** A path in a connected repository as the model wrote it, checked like a docs path; '.' for the root. */
function connectedPath(input: string | undefined, what = 'path'): string {
  return input === undefined ? '.' : normalizeRepoPath(input, what);
}

export async function listConnected(
  connected: ConnectedContext,
  input: { repository: string; path?: string | undefined },
  matches: (relative: string) => boolean,
  limits: ResolvedToolLimits,
): Promise<{ listed: string[]; total: number; where: string }> {
  const repository = named(connected, input.repository);
  const start = connectedPath(input.path);
  const prefix = start === '.' ? '' : `${start}/`;
  const files = await connected.files.list(repository);
  if (start !== '.' && files.some((f) => f.path === start)) {
    throw new ToolError(`${repository.name}:${start} is a file, not a directory`);
  }
  const listed: string[] = [];
  let total = 0;
  for (const file of files) {
    if (!file.path.startsWith(prefix) || !matches(file.path.slice(prefix.length))) continue;
    total++;
    if (listed.length < limits.maxListedFiles) listed.push(`${repository.name}:${file.path}`);
  }
  return { listed, total, where: `${repository.name}:${start === '.' ? '' : start}` };
}

/** A connected repository's file as text, recorded as a source of the turn. */
export async function readConnectedText(
  connected: ConnectedContext,
  input: { repository: string; path: string },
  limits: ResolvedToolLimits,
): Promise<{ label: string; text: string }> {
  const repository = named(connected, input.repository);
  const file = connectedPath(input.path);
  const label = `${repository.name}:${file}`;
  const text = await connected.files.read(repository, file, limits.maxFileBytes);
  if (text === null) {
    throw new ToolError(
      `${label} does not exist (at ${repository.commit.slice(0, 12)}); use list_files with repository "${repository.name}"`,
    );
  }
  if (text === 'binary') throw new ToolError(`${label} is a binary file; only text files can be read`);
  if (text === 'too-large') {
    throw new ToolError(
      `${label} is over the ${limits.maxFileBytes}-byte limit; use search to find the part you need`,
    );
  }
  connected.sources.record({
    kind: 'file',
    repository: repository.name,
    commit: repository.commit,
    path: file,
    url: repository.fileUrl(file),
  });
  return { label, text };
}

export async function searchConnected(
  connected: ConnectedContext,
  input: {
    repository: string;
    pattern: string;
    path?: string | undefined;
    case_insensitive?: boolean | undefined;
  },
  matches: (relative: string) => boolean,
  limits: ResolvedToolLimits,
  signal: AbortSignal | undefined,
): Promise<ContextSearchResult> {
  const repositories =
    input.repository === ALL_CONNECTED ? connected.repositories : [named(connected, input.repository)];
  const path = input.path === undefined ? undefined : connectedPath(input.path);
  const results = await Promise.all(
    repositories.map(async (repository) => {
      const found = await connected.files
        .search(repository, {
          pattern: input.pattern,
          caseInsensitive: input.case_insensitive === true,
          path,
          matches,
          maxMatches: limits.maxSearchMatches,
          timeoutMs: limits.searchTimeoutMs,
          signal,
        })
        .catch((error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          if (/timed out/.test(message)) {
            throw new ToolError(
              `search in ${repository.name} was stopped after ${limits.searchTimeoutMs / 1000} s; use a simpler regular expression or narrow path/glob`,
            );
          }
          throw new ToolError(
            `search in ${repository.name} failed: ${message.replace(/^git grep failed: /, '')}`,
          );
        });
      return {
        more: found.more,
        matches: found.matches.map((m) => ({ ...m, file: `${repository.name}:${m.file}` })),
      };
    }),
  );
  const all = results.flatMap((r) => r.matches);
  return {
    matches: all.slice(0, limits.maxSearchMatches),
    more: all.length > limits.maxSearchMatches || results.some((r) => r.more),
  };
}
