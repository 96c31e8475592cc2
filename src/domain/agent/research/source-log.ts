import { MAX_TURN_SOURCES, sourceId, type TurnSource } from '../../jobs/turn-sources.ts';

export { sourceId, type TurnSource } from '../../jobs/turn-sources.ts';

/**
 * What a turn read beyond the docs repository, as Docwright saw it in the tool calls (never
 * from the model's own words): files of connected repositories at the commit read, and pages
 * fetched from the web. The pull request's Sources section is made from it; the model may
 * narrow the list in `finish`, never add to it.
 */
export class SourceLog {
  readonly #sources = new Map<string, TurnSource>();

  /** Records a file read or a page fetched; the first record of a name wins. */
  record(source: TurnSource): void {
    const id = sourceId(source);
    if (this.#sources.has(id) || this.#sources.size >= MAX_TURN_SOURCES) return;
    this.#sources.set(id, source);
  }

  /** Everything recorded, in the order first seen. */
  list(): TurnSource[] {
    return [...this.#sources.values()];
  }

  /**
   * The sources the change relies on: those `chosen` names (as {@link sourceId}) when the model
   * gave any, else all. A name that was never recorded is dropped: the model cannot add one.
   */
  select(chosen: readonly string[] | undefined): TurnSource[] {
    if (chosen === undefined) return this.list();
    const wanted = new Set(chosen.map((id) => id.trim()));
    return this.list().filter((source) => wanted.has(sourceId(source)));
  }
}
