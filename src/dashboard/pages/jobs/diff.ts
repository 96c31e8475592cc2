/**
 * A unified diff (`git diff` of a job branch) as files, hunks and numbered lines for display.
 * parse-diff reads the format; this adds both line numbers to every line and names each file.
 */
import parseDiff from 'parse-diff';

export type DiffLineKind = 'add' | 'del' | 'context' | 'note';

export interface DiffLine {
  kind: DiffLineKind;
  /** Line number in the old file (removed and context lines). */
  oldLine: number | null;
  /** Line number in the new file (added and context lines). */
  newLine: number | null;
  /** The line without its +, - or space prefix. */
  text: string;
}

export interface DiffHunk {
  /** `@@ -1,4 +1,6 @@ heading` */
  header: string;
  lines: DiffLine[];
}

export interface FileDiff {
  path: string;
  /** The old path of a renamed or copied file. */
  oldPath: string | null;
  hunks: DiffHunk[];
  additions: number;
  deletions: number;
}

const DEV_NULL = '/dev/null';

export function parseUnifiedDiff(diff: string): FileDiff[] {
  return parseDiff(diff).map((file) => {
    const from = file.from && file.from !== DEV_NULL ? file.from : null;
    const to = file.to && file.to !== DEV_NULL ? file.to : null;
    const path = to ?? from ?? '(unknown file)';
    return {
      path,
      oldPath: from !== null && to !== null && from !== to ? from : null,
      additions: file.additions,
      deletions: file.deletions,
      hunks: file.chunks.map((chunk) => ({ header: chunk.content, lines: chunk.changes.map(toLine) })),
    };
  });
}

function toLine(change: parseDiff.Change): DiffLine {
  if (change.content.startsWith('\\')) {
    // "\ No newline at end of file", about the line before it.
    return { kind: 'note', oldLine: null, newLine: null, text: change.content.slice(1).trim() };
  }
  const text = change.content.slice(1);
  switch (change.type) {
    case 'add':
      return { kind: 'add', oldLine: null, newLine: change.ln, text };
    case 'del':
      return { kind: 'del', oldLine: change.ln, newLine: null, text };
    default:
      return { kind: 'context', oldLine: change.ln1, newLine: change.ln2, text };
  }
}

/** Lines a file's diff shows: what decides whether it starts collapsed. */
export const shownLines = (file: FileDiff) => file.hunks.reduce((sum, hunk) => sum + hunk.lines.length, 0);
