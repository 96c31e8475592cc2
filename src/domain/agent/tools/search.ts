import { Worker } from 'node:worker_threads';
import { Type } from 'typebox';
import {
  ALL_CONNECTED,
  type ConnectedContext,
  RepositoryParam,
  searchConnected,
  withRepositoryParam,
} from './connected-files.ts';
import { defineTool } from './define-tool.ts';
import type { ResolvedToolLimits } from './limits.ts';
import { globMatcher, startDirectory } from './list-files.ts';
import { capOutput } from './output.ts';
import type { SearchRequest, SearchResult } from './search-files.ts';
import { ToolError } from './tool-error.ts';
import type { Workspace } from './workspace.ts';

type WorkerReply = { ok: true; result: SearchResult } | { ok: false; message: string };

/** Runs the search in a worker thread, stopped after `timeoutMs` or when `signal` aborts. */
function runSearchWorker(request: SearchRequest, timeoutMs: number, signal: AbortSignal | undefined) {
  return new Promise<SearchResult>((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(new ToolError('search was cancelled'));
      return;
    }
    const worker = new Worker(new URL('./search-worker.ts', import.meta.url), { workerData: request });
    const stop = (error: Error) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      reject(error);
    };
    const timer = setTimeout(
      () =>
        stop(
          new ToolError(
            `search was stopped after ${timeoutMs / 1000} s; use a simpler regular expression or narrow path/glob`,
          ),
        ),
      timeoutMs,
    );
    const onAbort = () => stop(new ToolError('search was cancelled'));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (reply: WorkerReply) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      if (reply.ok) resolve(reply.result);
      else reject(new ToolError(`search failed (${reply.message})`));
    });
    worker.once('error', () => stop(new ToolError('search failed')));
  });
}

export function searchTool(workspace: Workspace, limits: ResolvedToolLimits, connected?: ConnectedContext) {
  return defineTool({
    workspace,
    description:
      'Search the text files of the repository with a JavaScript regular expression, line by line. ' +
      'Returns matching lines as "path:line: text", at most ' +
      `${limits.maxSearchMatches} of them. Use it to find every page that mentions something before ` +
      'changing it, or the links that point at a page you move. The .git and node_modules directories ' +
      'are not searched.' +
      (connected
        ? ` With \`repository\`, search a connected repository instead, or all of them with "${ALL_CONNECTED}"; matches are "name:path:line: text". Read a file with read_file before relying on it: the files you read are listed as the pull request's sources.`
        : ''),
    schema: withRepositoryParam(
      Type.Object(
        {
          repository: RepositoryParam,
          pattern: Type.String({
            minLength: 1,
            description:
              'JavaScript regular expression, without slashes, e.g. "api[_-]key" or "href=\\"/guides/".',
          }),
          path: Type.Optional(
            Type.String({
              minLength: 1,
              description:
                'Directory or file to search, relative to the repository root. Default: the whole repository.',
            }),
          ),
          glob: Type.Optional(
            Type.String({
              description:
                'Only search files whose path (relative to `path`) matches this glob, e.g. "**/*.mdx".',
            }),
          ),
          case_insensitive: Type.Optional(
            Type.Boolean({ description: 'Ignore letter case. Default false.' }),
          ),
        },
        { additionalProperties: false },
      ),
      connected,
      { all: true },
    ),
    run: async (input, signal) => {
      const flags = input.case_insensitive === true ? 'i' : '';
      try {
        new RegExp(input.pattern, flags);
      } catch (error) {
        throw new ToolError(
          `invalid regular expression: ${error instanceof Error ? error.message : input.pattern}`,
        );
      }
      const matchesGlob = globMatcher(input.glob);
      if (input.repository !== undefined && connected) {
        const found = await searchConnected(
          connected,
          { ...input, repository: input.repository },
          matchesGlob,
          limits,
          signal,
        );
        if (found.matches.length === 0)
          return `No matches for /${input.pattern}/ in ${input.repository === ALL_CONNECTED ? 'the connected repositories' : input.repository}.`;
        const lines = found.matches.map((m) => `${m.file}:${m.line}: ${m.text}`);
        const note = found.more
          ? `\n[more than ${found.matches.length} matches; only these are shown. Narrow the pattern, path or glob]`
          : '';
        return capOutput(lines.join('\n') + note, limits.maxOutputChars, 'Narrow the pattern, path or glob.');
      }
      const start = await startDirectory(workspace, input.path);
      if (!start.isDirectory) await workspace.existingFile(start.relative);

      const result = await runSearchWorker(
        {
          start: { absolute: start.real, relative: start.relative, isDirectory: start.isDirectory },
          source: input.pattern,
          flags,
          glob: input.glob === '' ? undefined : input.glob,
          maxMatches: limits.maxSearchMatches,
          maxFileBytes: limits.maxFileBytes,
        },
        limits.searchTimeoutMs,
        signal,
      );

      const skipped =
        result.filesSkipped > 0 ? ` (${result.filesSkipped} binary or oversized files skipped)` : '';
      if (result.matches.length === 0) {
        return `No matches for /${input.pattern}/ in ${result.filesSearched} files${skipped}.`;
      }
      const lines = result.matches.map((m) => `${m.file}:${m.line}: ${m.text}`);
      const note = result.more
        ? `\n[more than ${limits.maxSearchMatches} matches; only the first ${limits.maxSearchMatches} are shown. Narrow the pattern, path or glob]`
        : '';
      return capOutput(lines.join('\n') + note, limits.maxOutputChars, 'Narrow the pattern, path or glob.');
    },
  });
}
