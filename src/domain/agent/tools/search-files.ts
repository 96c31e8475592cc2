import { open, stat } from 'node:fs/promises';
import { walkFiles } from './walk.ts';
import { READ_FLAGS } from './workspace.ts';

export interface SearchRequest {
  /** Checked real path of the directory or file to search, and its repository-relative form. */
  start: { absolute: string; relative: string; isDirectory: boolean };
  source: string;
  flags: string;
  /** Glob source applied to paths relative to `start` (directories only). */
  glob: string | undefined;
  maxMatches: number;
  maxFileBytes: number;
}

export interface SearchMatch {
  file: string;
  line: number;
  text: string;
}

export interface SearchResult {
  matches: SearchMatch[];
  /** True when there were more matches than `maxMatches`; scanning stopped at the first extra one. */
  more: boolean;
  filesSearched: number;
  /** Files skipped as too large or binary. */
  filesSkipped: number;
}

const MAX_LINE_CHARS = 240;

/** A line cut to a readable window around the match. */
function excerpt(line: string, index: number): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  const from = Math.max(0, Math.min(index - MAX_LINE_CHARS / 3, line.length - MAX_LINE_CHARS));
  const to = from + MAX_LINE_CHARS;
  return `${from > 0 ? '…' : ''}${line.slice(from, to)}${to < line.length ? '…' : ''}`;
}

/**
 * Runs a regular expression over the repository's text files, line by line. Runs inside a
 * worker thread (search-worker.ts) so that a pathological expression can be stopped.
 */
export async function searchFiles(
  request: SearchRequest,
  matchesGlob: (relative: string) => boolean,
): Promise<SearchResult> {
  const regex = new RegExp(request.source, request.flags);
  const result: SearchResult = { matches: [], more: false, filesSearched: 0, filesSkipped: 0 };
  const files = request.start.isDirectory
    ? walkFiles({ absolute: request.start.absolute, relative: request.start.relative })
    : single(request.start);
  for await (const file of files) {
    if (file.kind !== 'file') continue;
    if (request.start.isDirectory) {
      const fromStart =
        request.start.relative === '.'
          ? file.relative
          : file.relative.slice(request.start.relative.length + 1);
      if (!matchesGlob(fromStart)) continue;
    }
    const info = await stat(file.absolute).catch(() => null);
    if (info === null || !info.isFile() || info.nlink > 1) continue;
    if (info.size > request.maxFileBytes) {
      result.filesSkipped++;
      continue;
    }
    const handle = await open(file.absolute, READ_FLAGS).catch(() => null);
    if (handle === null) continue;
    const bytes = await handle.readFile().finally(() => handle.close());
    if (bytes.includes(0)) {
      result.filesSkipped++;
      continue;
    }
    result.filesSearched++;
    const lines = bytes.toString('utf8').split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] ?? '';
      const match = regex.exec(line);
      if (match === null) continue;
      if (result.matches.length === request.maxMatches) {
        result.more = true;
        return result;
      }
      result.matches.push({ file: file.relative, line: i + 1, text: excerpt(line, match.index) });
    }
  }
  return result;
}

async function* single(start: { absolute: string; relative: string }) {
  yield { absolute: start.absolute, relative: start.relative, kind: 'file' as const };
}
