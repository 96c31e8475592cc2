import {
  type AnalyticsStore,
  decodeScanCursor,
  isBulkLoader,
  nextScanCursor,
  type ViewScanner,
} from './store.ts';

/** Where a copy stands, kept between runs so an interrupted copy resumes (see `copyViews`). */
export interface CopyCheckpoint {
  /** The source position after the last batch known to be in the target (null: the start). */
  cursor: string | null;
  /** Views read from the source up to `cursor`. */
  copied: number;
  /**
   * Set just before a batch is appended to the target, cleared once the batch is in: the
   * batch's end position and the target's view count before it.
   */
  pending: { end: string | null; size: number; targetCountBefore: number } | null;
  done: boolean;
  /** A bulk copy is under way: its batches went to `bulkAppend`, `finishBulk` has not ended. */
  bulk?: boolean;
}

export interface CheckpointStore {
  load(): Promise<CopyCheckpoint | null>;
  /** Durable when it resolves. */
  save(checkpoint: CopyCheckpoint): Promise<void>;
}

export interface CopyProgress {
  copied: number;
  total: number;
}

export interface CopyOptions {
  projectId: string;
  source: AnalyticsStore & ViewScanner;
  target: AnalyticsStore & ViewScanner;
  checkpoints: CheckpointStore;
  batchSize?: number;
  onProgress?: (progress: CopyProgress) => void;
  /**
   * How batches go into the target when it is a BulkLoader (ClickHouse): `auto` (the default)
   * bulk-loads when the source holds at least `bulkMinViews` views of the project and the target
   * none at the start (or a bulk copy was interrupted), `always` whenever it can, `never`
   * through `append`. A bulk copy builds the target's derived state once, at the end
   * (`finishBulk`), which costs a dozen statements however small the project.
   */
  load?: 'auto' | 'always' | 'never';
  /** Default 100,000. */
  bulkMinViews?: number;
}

/**
 * Copies a project's stored views from one store to another, batch by batch through the
 * target's `append`, resumable.
 *
 * Views with an event key could simply be appended again (the target drops duplicates), but
 * views without one cannot: appended twice they count twice. So before each batch the
 * checkpoint records the batch and the target's view count (`pending`); after the append it
 * records the new cursor. Interrupted between the two, the next run compares the target's
 * count with the recorded one: an append is one transaction (one insert on ClickHouse), so a
 * changed count means the batch is in and is skipped, an unchanged one that it is not (or held
 * only duplicates) and it is appended again. This needs the project to receive no other
 * writes on the target during the copy; the source may not receive views older than the
 * cursor either (new traffic goes to the source until the switch: copy again afterwards).
 */
export async function copyViews(options: CopyOptions): Promise<CopyProgress> {
  const { projectId, source, target, checkpoints } = options;
  const batchSize = options.batchSize ?? 5_000;
  const total = await source.countViews(projectId);
  let checkpoint: CopyCheckpoint = (await checkpoints.load()) ?? {
    cursor: null,
    copied: 0,
    pending: null,
    done: false,
  };
  if (checkpoint.pending !== null) {
    const { pending } = checkpoint;
    const now = await target.countViews(projectId);
    checkpoint =
      now !== pending.targetCountBefore
        ? {
            cursor: pending.end,
            copied: checkpoint.copied + pending.size,
            pending: null,
            done: false,
            ...(checkpoint.bulk ? { bulk: true } : {}),
          }
        : { ...checkpoint, pending: null };
    await checkpoints.save(checkpoint);
  }
  const mode = options.load ?? 'auto';
  const bulkTarget = isBulkLoader(target) ? target : null;
  if (mode === 'always' && bulkTarget === null) throw new Error('This target cannot bulk-load views');
  const bulk =
    bulkTarget !== null &&
    (checkpoint.bulk === true ||
      mode === 'always' ||
      (mode === 'auto' &&
        total - checkpoint.copied >= (options.bulkMinViews ?? 100_000) &&
        (await target.countViews(projectId)) === 0));
  options.onProgress?.({ copied: checkpoint.copied, total });
  // A finished copy run again continues from its end: views that arrived since are copied.
  checkpoint.done = false;
  if (bulk) checkpoint.bulk = true;
  while (!checkpoint.done) {
    const page = await source.scan(projectId, checkpoint.cursor, batchSize);
    if (page.views.length > 0) {
      const targetCountBefore = await target.countViews(projectId);
      await checkpoints.save({
        ...checkpoint,
        pending: {
          end:
            page.next ?? nextScanCursor(decodeScanCursor(checkpoint.cursor), page.views, page.views.length),
          size: page.views.length,
          targetCountBefore,
        },
      });
      if (bulkTarget !== null && bulk) await bulkTarget.bulkAppend(projectId, page.views);
      else await target.append(projectId, page.views);
    }
    // After the last page, the position after its views (not "the start"), for a later run.
    const end =
      page.next ??
      (page.views.length > 0
        ? nextScanCursor(decodeScanCursor(checkpoint.cursor), page.views, page.views.length)
        : checkpoint.cursor);
    checkpoint = {
      cursor: end,
      copied: checkpoint.copied + page.views.length,
      pending: null,
      done: page.next === null,
      ...(bulk ? { bulk: true } : {}),
    };
    await checkpoints.save(checkpoint);
    options.onProgress?.({ copied: checkpoint.copied, total });
  }
  if (bulkTarget !== null && bulk) {
    // Interrupted here, the next run finds `bulk` and builds again (from the start: harmless).
    await bulkTarget.finishBulk(projectId);
    checkpoint = { ...checkpoint, bulk: false };
    await checkpoints.save(checkpoint);
  }
  return { copied: checkpoint.copied, total };
}
