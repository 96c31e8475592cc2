/**
 * What a turn read beyond the docs repository, as Docwright saw it in the tool calls (never
 * from the model's own words): files of connected repositories at the commit read, and pages
 * fetched from the web. The pull request's Sources section is made from it; the model may
 * narrow the list in `finish`, never add to it.
 */
export type Source =
  | {
      kind: 'file';
      /** The connected repository's name in the project. */
      repository: string;
      /** The commit the file was read at. */
      commit: string;
      path: string;
      /** The file at that commit on its code host, when there is one. */
      url: string | null;
    }
  | { kind: 'url'; url: string };

/** How a source is named to the model and in `finish`: `name:path` for a file, the URL itself for a page. */
export function sourceId(source: Source): string {
  return source.kind === 'file' ? `${source.repository}:${source.path}` : source.url;
}

/** Sources kept per turn at most: a turn that reads more lists the first ones. */
export const MAX_SOURCES = 200;

export class SourceLog {
  readonly #sources = new Map<string, Source>();

  /** Records a file read or searched with a match shown; the first read of a path wins. */
  record(source: Source): void {
    const id = sourceId(source);
    if (this.#sources.has(id) || this.#sources.size >= MAX_SOURCES) return;
    this.#sources.set(id, source);
  }

  /** Everything recorded, in the order first seen. */
  list(): Source[] {
    return [...this.#sources.values()];
  }

  /**
   * The sources the change relies on: those `chosen` names (as {@link sourceId}) when the model
   * gave any, else all. A name that was never recorded is dropped: the model cannot add one.
   */
  select(chosen: readonly string[] | undefined): Source[] {
    if (chosen === undefined) return this.list();
    const wanted = new Set(chosen.map((id) => id.trim()));
    return this.list().filter((source) => wanted.has(sourceId(source)));
  }
}
