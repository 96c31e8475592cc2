import type {
  AnalyticsStore,
  AppendResult,
  Breakdown,
  BreakdownQuery,
  BulkLoader,
  PageQuery,
  PageReport,
  PreparedEvent,
  Reclassifier,
  ReclassifyResult,
  SeriesPoint,
  SeriesQuery,
  ViewScan,
  ViewScanner,
} from '../../../domain/analytics/store.ts';
import type { Locks } from '../../../storage/locks.ts';
import { Appender, appendLockName } from './append.ts';
import { bulkInsert } from './bulk-load.ts';
import { type ClickHouseConnection, type ClickHouseConnectionOptions, connect } from './connection.ts';
import { breakdown, timeSeries } from './exports.ts';
import { migrate } from './migrations.ts';
import { pages } from './page-query.ts';
import { type RebuildOptions, rebuildVisits } from './rebuild-visits.ts';
import { reclassify } from './reclassify.ts';
import { countProjectViews, scanViews } from './scan.ts';
import { literal } from './sql-literal.ts';

export interface ClickHouseStoreOptions extends ClickHouseConnectionOptions {
  /**
   * The main database's locks (Storage.locks), shared by every process writing to this
   * ClickHouse database: appends and schema steps hold them. `processLocks()` only for a
   * process that is the database's only writer.
   */
  locks: Locks;
  /** Most buckets one time series may have. */
  maxSeriesBuckets?: number;
  /** How `finishBulk` (and a reclassification's rebuild) splits its work (rebuild-visits.ts). */
  rebuild?: RebuildOptions;
}

/**
 * The analytics store on ClickHouse (18.16 and later), over its HTTP interface with the
 * official client. Views are rows of `views`; distinct visitors are counted exactly from
 * first-visit tables kept at insert (visit-deltas.ts, page-query.ts); idempotency keys are
 * checked before each insert (see Appender).
 */
export class ClickHouseAnalyticsStore implements AnalyticsStore, ViewScanner, BulkLoader {
  private readonly connection: ClickHouseConnection;
  private readonly options: ClickHouseStoreOptions;
  private readonly appender: Appender;
  private closed = false;

  constructor(connection: ClickHouseConnection, options: ClickHouseStoreOptions) {
    this.connection = connection;
    this.options = options;
    this.appender = new Appender(connection, options.locks);
  }

  append(projectId: string, events: readonly PreparedEvent[]): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('The analytics store is closed'));
    return this.appender.append(projectId, events);
  }

  /** Views without the first-visit tables, for `finishBulk` to build (bulk-load.ts). */
  async bulkAppend(projectId: string, events: readonly PreparedEvent[]): Promise<AppendResult> {
    if (this.closed) throw new Error('The analytics store is closed');
    await this.appender.idle();
    return this.holdingProject(projectId, (lost) => bulkInsert(this.connection, projectId, events, lost));
  }

  async finishBulk(projectId: string): Promise<void> {
    await this.appender.idle();
    await this.holdingProject(projectId, (lost) =>
      completeUnlessLost(lost, rebuildVisits(this.connection, projectId, this.options.rebuild)),
    );
  }

  pages(projectId: string, query: PageQuery): Promise<PageReport> {
    return pages(this.connection, projectId, query);
  }

  timeSeries(projectId: string, query: SeriesQuery): Promise<SeriesPoint[]> {
    return timeSeries(this.connection, projectId, query, this.options.maxSeriesBuckets ?? 10_000);
  }

  breakdown(projectId: string, query: BreakdownQuery): Promise<Breakdown> {
    return breakdown(this.connection, projectId, query);
  }

  async reclassify(projectId: string, classifier: Reclassifier): Promise<ReclassifyResult> {
    await this.appender.idle();
    // Appends to the project, from any process, wait: the rebuild counts the views it reads.
    let whole = true;
    const result = await this.holdingProject(projectId, async (lost) => {
      const done = await reclassify(this.connection, projectId, classifier, this.options.rebuild);
      whole = !lost.aborted;
      return done;
    });
    // The views are reclassified, but the lock went on the way: build the tables again, as
    // running the command again would not (it finds nothing left to reclassify).
    if (!whole) await this.finishBulk(projectId);
    return result;
  }

  async scan(projectId: string, cursor: string | null, limit: number): Promise<ViewScan> {
    await this.appender.idle();
    return scanViews(this.connection, projectId, cursor, limit);
  }

  async countViews(projectId: string): Promise<number> {
    await this.appender.idle();
    return countProjectViews(this.connection, projectId);
  }

  async deleteProject(projectId: string): Promise<void> {
    await this.appender.idle();
    const { db } = this.connection;
    await this.holdingProject(projectId, async () => {
      for (const table of ['views', 'event_keys', 'pair_days', 'day_counts']) {
        await this.connection.command(
          `ALTER TABLE ${db}.${table} DELETE WHERE project = ${literal(projectId)}`,
        );
        await this.connection.awaitMutations(table);
      }
    });
  }

  /**
   * Runs `work` holding the project's lock in the main database, which every process's appends
   * to it take too (see Appender).
   */
  private holdingProject<T>(projectId: string, work: (lost: AbortSignal) => Promise<T>): Promise<T> {
    return this.options.locks.holding([appendLockName(this.connection.database, projectId)], work);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.appender.idle();
    await this.connection.close();
  }
}

/** Connects, creates the database and brings its schema up to date. */
export async function openClickHouseAnalyticsStore(
  options: ClickHouseStoreOptions,
): Promise<ClickHouseAnalyticsStore> {
  const connection = connect(options);
  try {
    await migrate(connection, options.locks);
  } catch (error) {
    await connection.close();
    throw error;
  }
  return new ClickHouseAnalyticsStore(connection, options);
}

/**
 * A rebuild from the views that lost its lock on the way may have missed views another node
 * appended meanwhile: it fails, to be run again (a rebuild starts from the views, so running it
 * again is safe).
 */
async function completeUnlessLost<T>(lost: AbortSignal, work: Promise<T>): Promise<T> {
  const result = await work;
  lost.throwIfAborted();
  return result;
}
