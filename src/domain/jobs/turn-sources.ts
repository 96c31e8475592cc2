/**
 * What a turn's change relies on beyond the docs repository: files of connected repositories
 * at the commit read, and web pages fetched. Recorded from the tool calls Docwright saw (the
 * model may narrow the list, never add to it); shown in the pull request's Sources section,
 * on the job's turns and in the local review.
 */
export type TurnSource =
  | {
      kind: 'file';
      /** The connected repository's name in the project. */
      repository: string;
      /** The commit the file was read at. */
      commit: string;
      path: string;
      /** The file at that commit on its code host; null when there is none (a local repository). */
      url: string | null;
    }
  | { kind: 'url'; url: string };

/** Sources kept per turn at most. */
export const MAX_TURN_SOURCES = 200;

/** How a source is named to the model and in `finish`: `name:path` for a file, the URL itself for a page. */
export function sourceId(source: TurnSource): string {
  return source.kind === 'file' ? `${source.repository}:${source.path}` : source.url;
}

/** The stored JSON (`turns.sources`) back as sources; anything unreadable counts as none. */
export function parseTurnSources(stored: string | null): TurnSource[] {
  if (stored === null) return [];
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) ? (parsed as TurnSource[]) : [];
  } catch {
    return [];
  }
}
