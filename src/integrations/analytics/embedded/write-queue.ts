import type { AppendResult, PreparedColumns, PreparedEvent } from '../../../domain/analytics/store.ts';

export interface PendingAppend {
  projectId: string;
  /** Events, or a preparation thread's columns of them (AnalyticsStore.appendColumns). */
  events: readonly PreparedEvent[] | PreparedColumns;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: appends made in the same turn of the event loop are handed to `commit`
 * together, so concurrent requests share one transaction and one sync.
 */
export class WriteQueue {
  private queue: PendingAppend[] = [];
  private scheduled = false;
  private readonly commit: (batch: PendingAppend[]) => void;

  constructor(commit: (batch: PendingAppend[]) => void) {
    this.commit = commit;
  }

  push(projectId: string, events: readonly PreparedEvent[] | PreparedColumns): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ projectId, events, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits what is queued now (also on close); `commit` settles each append's promise. */
  flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length > 0) this.commit(batch);
  }
}
