import type SqliteDatabase from 'better-sqlite3';

/**
 * Checkpoints of the in-memory index: a snapshot per (project, day) (see snapshot.ts) and the
 * seq up to which a project's snapshots cover the log, so a process rebuilds an index from the
 * snapshots plus the chunks after them rather than from every view. A project's generation is
 * bumped when its stored views are rewritten (reclassification): processes holding an index
 * built from the old views see the change and rebuild it.
 */
export class CheckpointStore {
  private readonly sqlite: SqliteDatabase.Database;
  private readonly statements;

  constructor(sqlite: SqliteDatabase.Database) {
    this.sqlite = sqlite;
    this.statements = {
      snapshots: sqlite.prepare('select day, data from day_snapshots where project = ?'),
      covered: sqlite.prepare('select covered_seq from snapshot_marks where project = ?').pluck(),
      upsertSnapshot: sqlite.prepare(
        `insert into day_snapshots (project, day, data) values (?, ?, ?)
         on conflict (project, day) do update set data = excluded.data`,
      ),
      upsertCovered: sqlite.prepare(
        `insert into snapshot_marks (project, covered_seq) values (?, ?)
         on conflict (project) do update set covered_seq = excluded.covered_seq`,
      ),
      deleteSnapshots: sqlite.prepare('delete from day_snapshots where project = ?'),
      deleteCovered: sqlite.prepare('delete from snapshot_marks where project = ?'),
      generation: sqlite.prepare('select generation from index_generations where project = ?').pluck(),
      bumpGeneration: sqlite.prepare(
        `insert into index_generations (project, generation) values (?, 1)
         on conflict (project) do update set generation = generation + 1`,
      ),
    };
  }

  /** The project's index generation (0 until its views are first rewritten). */
  generation(project: number): number {
    return (this.statements.generation.get(project) as number | undefined) ?? 0;
  }

  /** After rewriting or emptying a project's views (inside a write): drop its snapshots, bump its generation. */
  invalidate(project: number): void {
    this.statements.deleteSnapshots.run(project);
    this.statements.deleteCovered.run(project);
    this.statements.bumpGeneration.run(project);
  }

  /**
   * Hands the project's day snapshots to `each`, one at a time (together they can be hundreds
   * of megabytes), until it returns false; returns the seq they cover. One read transaction.
   */
  load(project: number, each: (data: Buffer) => boolean): number {
    const read = this.sqlite.transaction(() => {
      const covered = (this.statements.covered.get(project) as number | undefined) ?? 0;
      for (const row of this.statements.snapshots.iterate(project) as Iterable<{ data: Buffer }>) {
        if (!each(row.data)) break;
      }
      return covered;
    });
    return read.deferred();
  }

  /**
   * Writes a checkpoint of a project's index at `covered`, built at index `generation`.
   * `changedSince(stored)` yields the days changed after the stored checkpoint, one at a time (a
   * day's snapshot can be tens of megabytes: never all at once); nothing is written when another
   * process has already checkpointed as far, or when the project's views were rewritten since.
   */
  save(
    project: number,
    covered: number,
    generation: number,
    changedSince: (storedCovered: number) => Iterable<{ day: number; data: Buffer }>,
  ): number {
    const write = this.sqlite.transaction(() => {
      // An index built before the views were rewritten must not be saved over the new ones.
      if (this.generation(project) !== generation) return 0;
      const stored = (this.statements.covered.get(project) as number | undefined) ?? 0;
      if (stored >= covered) return 0;
      let written = 0;
      for (const { day, data } of changedSince(stored)) {
        this.statements.upsertSnapshot.run(project, day, data);
        written++;
      }
      this.statements.upsertCovered.run(project, covered);
      return written;
    });
    return write.immediate();
  }
}
