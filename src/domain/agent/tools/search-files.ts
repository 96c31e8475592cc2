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

const READ_BATCH = 32;

/** A file's text; `skipped` when binary or too large; null when unreadable or not a plain file. */
async function readCandidate(
  absolute: string,
  maxBytes: number,
): Promise<{ text: string } | 'skipped' | null> {
  const info = await stat(absolute).catch(() => null);
  if (info === null || !info.isFile() || info.nlink > 1) return null;
  if (info.size > maxBytes) return 'skipped';
  const handle = await open(absolute, READ_FLAGS).catch(() => null);
  if (handle === null) return null;
  const bytes = await handle.readFile().finally(() => handle.close());
  return bytes.includes(0) ? 'skipped' : { text: bytes.toString('utf8') };
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
  const candidates: { absolute: string; relative: string }[] = [];
  if (!request.start.isDirectory) candidates.push(request.start);
  else {
    for await (const file of walkFiles({
      absolute: request.start.absolute,
      relative: request.start.relative,
    })) {
      const fromStart =
        request.start.relative === '.'
          ? file.relative
          : file.relative.slice(request.start.relative.length + 1);
      if (file.kind === 'file' && matchesGlob(fromStart)) candidates.push(file);
    }
  }
  // Files are read a batch at a time (reading is most of the cost) but scanned in order.
  for (let i = 0; i < candidates.length; i += READ_BATCH) {
    const batch = candidates.slice(i, i + READ_BATCH);
    const contents = await Promise.all(
      batch.map((file) => readCandidate(file.absolute, request.maxFileBytes)),
    );
    for (const [n, file] of batch.entries()) {
      const content = contents[n];
      if (content === 'skipped') result.filesSkipped++;
      if (content === 'skipped' || content === null || content === undefined) continue;
      result.filesSearched++;
      const lines = content.text.split(/\r?\n/);
      for (let line = 0; line < lines.length; line++) {
        const text = lines[line] ?? '';
        const match = regex.exec(text);
        if (match === null) continue;
        if (result.matches.length === request.maxMatches) {
          result.more = true;
          return result;
        }
        result.matches.push({ file: file.relative, line: line + 1, text: excerpt(text, match.index) });
      }
    }
  }
  return result;
}
