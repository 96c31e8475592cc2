import pg from 'pg';
import type {
  AnalyticsStore,
  AppendResult,
  Breakdown,
  BreakdownQuery,
  Counts,
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
import { surviveConnectionLoss } from '../../../storage/pg-connection-loss.ts';
import { MAX_GROUP_VIEWS, takeGroup } from '../append-groups.ts';
import { type AppendDictionaries, type AppendRequest, appendViews } from './append.ts';
import { breakdown } from './breakdown-query.ts';
import { Dictionary, ProjectNumbers } from './dictionaries.ts';
import { countPages } from './page-query.ts';
import { resolveSpan } from './range.ts';
import { reclassifyViews } from './reclassify.ts';
import { foldPending } from './record-visits.ts';
import { countProjectViews, scanViews } from './scan.ts';
import { lockProject, lockVisits, migrateAnalytics } from './schema.ts';
import { timeSeries } from './series-query.ts';

export interface PostgresAnalyticsOptions {
  /** The PostgreSQL server, as `DATABASE_URL` (the jobs' database). */
  url: string;
  /** The schema of the jobs' tables (null: the server's search_path). */
  schema: string | null;
  /** Connections in the pool (default 8). */
  poolSize?: number;
  /** Most buckets one time series may have (default 10,000). */
  maxSeriesBuckets?: number;
}

/**
 * How long the pools wait for a connection, to open one or for a free one (pg-pool has one
 * timeout for both): longer than the main database's, since exports, folds and reclassification
 * hold theirs for seconds; past it the request fails as unavailable (503) rather than waiting
 * on a server out of reach.
 */
const ANALYTICS_POOL_WAIT_MS = 60_000;

/** Opens the store and brings its tables up to date; the composition root calls this. */
export async function openPostgresAnalyticsStore(
  options: PostgresAnalyticsOptions,
): Promise<PostgresAnalyticsStore> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 8,
    connectionTimeoutMillis: ANALYTICS_POOL_WAIT_MS,
    // Folds and exports sort and group a few hundred thousand rows: in memory, not on disk.
    // They are planned with parameters, so JIT compiles for a cost it never recovers.
    options: `${options.schema ? `-c search_path=${options.schema} ` : ''}-c work_mem=32MB -c jit=off`,
  });
  // Appends pipeline their statements (append.ts): connections of their own, one per lane.
  const writers = new pg.Pool({
    connectionString: options.url,
    max: FLUSH_LANES,
    pipeline: true,
    connectionTimeoutMillis: ANALYTICS_POOL_WAIT_MS,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  surviveConnectionLoss(pool);
  surviveConnectionLoss(writers);
  try {
    await migrateAnalytics(pool, options.schema);
  } catch (error) {
    await Promise.all([pool.end(), writers.end()]);
    throw error;
  }
  return new PostgresAnalyticsStore(pool, writers, options);
}

const NO_COUNTS: Counts = {
  human: 0,
  ai: 0,
  total: 0,
  aiAssistant: 0,
  aiSearch: 0,
  aiTraining: 0,
  aiOther: 0,
};

/**
 * A process folds a project's pending views into the first-visit table in the background once
 * it has appended this many, or once appends pause for FOLD_IDLE_MS; a visitors export folds
 * whatever is left before counting.
 */
const FOLD_EVERY = 50_000;
const FOLD_IDLE_MS = 1_000;

/** Appends in flight at once: one in the database while the next is prepared. */
const FLUSH_LANES = 2;

interface Pending extends AppendRequest {
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/**
 * The analytics store in PostgreSQL, beside the jobs: every view in `analytics_views`, and a
 * first-visit table (`analytics_visits`, see schema.ts) from which the visitors exports count
 * exact distinct visitors without a distinct over raw views. Appends made in the same turn of
 * the event loop share one transaction (group commit); each resolves after COMMIT.
 */
export class PostgresAnalyticsStore implements AnalyticsStore, ViewScanner {
  private readonly pool: pg.Pool;
  private readonly writers: pg.Pool;
  private readonly options: PostgresAnalyticsOptions;
  private readonly dictionaries: AppendDictionaries = {
    paths: new Dictionary('analytics_paths'),
    agents: new Dictionary('analytics_agents'),
    userAgents: new Dictionary('analytics_user_agents'),
    referrers: new Dictionary('analytics_referrers'),
  };
  private readonly projects = new ProjectNumbers();
  private queue: Array<{
    projectId: string;
    events: readonly PreparedEvent[];
    pending: Omit<Pending, 'project' | 'events'>;
  }> = [];
  /** Flush loops running: a second prepares its batch while the first is in the database. */
  private readonly lanes = new Set<Promise<void>>();
  private closed = false;
  /** Views this process appended and has not folded, per project number. */
  private readonly unfolded = new Map<number, number>();
  private folding: Promise<void> | null = null;
  private foldTimer: NodeJS.Timeout | null = null;

  constructor(pool: pg.Pool, writers: pg.Pool, options: PostgresAnalyticsOptions) {
    this.pool = pool;
    this.writers = writers;
    this.options = options;
  }

  append(projectId: string, events: readonly PreparedEvent[]): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('The analytics store is closed'));
    if (events.length === 0) return Promise.resolve({ accepted: 0, duplicates: 0 });
    return new Promise((resolve, reject) => {
      this.queue.push({ projectId, events, pending: { resolve, reject } });
      if (this.lanes.size < FLUSH_LANES) {
        const lane: Promise<void> = new Promise((done) => setImmediate(done))
          .then(() => this.flush())
          .finally(() => this.lanes.delete(lane));
        this.lanes.add(lane);
      }
    });
  }

  async pages(projectId: string, query: PageQuery): Promise<PageReport> {
    const project = await this.projects.numberOf(this.pool, projectId, false);
    const span = project === null ? null : await resolveSpan(this.pool, project, query.range);
    if (project === null || span === null) return { totals: { ...NO_COUNTS }, rows: [], hasMore: false };
    // Visitors are counted from the first-visit table: every acknowledged view must be in it.
    if (query.measure === 'visitors' && (await hasPending(this.pool, project))) {
      await foldPending(this.pool, project, true);
    }
    const { totals, rows } = await countPages(this.pool, this.dictionaries.paths, project, span, query);
    return {
      totals,
      rows: rows.slice(query.offset, query.offset + query.limit),
      hasMore: query.offset + query.limit < rows.length,
    };
  }

  async timeSeries(projectId: string, query: SeriesQuery): Promise<SeriesPoint[]> {
    const project = await this.projects.numberOf(this.pool, projectId, false);
    const span = project === null ? null : await resolveSpan(this.pool, project, query.range);
    if (project === null || span === null) return [];
    return timeSeries(
      this.pool,
      project,
      span,
      query.interval,
      query.countAiCrawlersAsAi,
      query.verifiedOnly,
      this.options.maxSeriesBuckets ?? 10_000,
    );
  }

  async breakdown(projectId: string, query: BreakdownQuery): Promise<Breakdown> {
    const project = await this.projects.numberOf(this.pool, projectId, false);
    const span = project === null ? null : await resolveSpan(this.pool, project, query.range);
    return breakdown(
      this.pool,
      this.dictionaries.agents,
      project ?? 0,
      span,
      query.operatorOf,
      query.verifiedOnly,
    );
  }

  async reclassify(projectId: string, classifier: Reclassifier): Promise<ReclassifyResult> {
    const project = await this.projects.numberOf(this.pool, projectId, false);
    if (project === null) return { examined: 0, changed: 0 };
    return reclassifyViews(this.pool, this.dictionaries, project, classifier);
  }

  async scan(projectId: string, cursor: string | null, limit: number): Promise<ViewScan> {
    const project = await this.projects.numberOf(this.pool, projectId, false);
    if (project === null) return { views: [], next: null };
    return scanViews(this.pool, this.dictionaries, project, cursor, limit);
  }

  async countViews(projectId: string): Promise<number> {
    const project = await this.projects.numberOf(this.pool, projectId, false);
    return project === null ? 0 : countProjectViews(this.pool, project);
  }

  async deleteProject(projectId: string): Promise<void> {
    const project = await this.projects.numberOf(this.pool, projectId, false);
    if (project === null) return;
    const client = await this.pool.connect();
    try {
      await client.query('begin');
      await lockProject(client, project);
      await lockVisits(client, project, true);
      await client.query(`select set_config('analytics.counts', 'off', true)`);
      await client.query('delete from analytics_pending where project = $1', [project]);
      await client.query('delete from analytics_views where project = $1', [project]);
      await client.query('delete from analytics_visits where project = $1', [project]);
      await client.query('delete from analytics_visit_counts where project = $1', [project]);
      await client.query('delete from analytics_visit_next where project = $1', [project]);
      await client.query('delete from analytics_visit_starts where project = $1', [project]);
      await client.query('delete from analytics_visit_ends where project = $1', [project]);
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.lanes.size > 0) await Promise.all(this.lanes);
    if (this.foldTimer) clearTimeout(this.foldTimer);
    // What is still pending stays in analytics_pending: the next export folds it.
    await this.folding;
    await Promise.all([this.pool.end(), this.writers.end()]);
  }

  /** Writes everything queued, one transaction per round, until the queue is empty (never throws). */
  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = takeGroup(this.queue, MAX_GROUP_VIEWS);
      try {
        const requests: Pending[] = [];
        for (const item of batch) {
          const project = (await this.projects.numberOf(this.pool, item.projectId, true)) as number;
          requests.push({ project, events: item.events, ...item.pending });
        }
        const results = await appendViews(this.pool, this.writers, this.dictionaries, requests);
        requests.forEach((r, i) => {
          const result = results[i] as AppendResult;
          r.resolve(result);
          this.unfolded.set(r.project, (this.unfolded.get(r.project) ?? 0) + result.accepted);
        });
        this.foldLater();
      } catch (error) {
        for (const item of batch) item.pending.reject(error);
      }
    }
  }

  /** Folds in the background: at once past FOLD_EVERY views, else when appends pause. */
  private foldLater(): void {
    if (this.closed || this.folding) return;
    const due = [...this.unfolded.values()].some((n) => n >= FOLD_EVERY);
    if (this.foldTimer) clearTimeout(this.foldTimer);
    this.foldTimer = setTimeout(() => this.startFolding(due ? FOLD_EVERY : 1), due ? 0 : FOLD_IDLE_MS);
    this.foldTimer.unref();
  }

  private startFolding(atLeast: number): void {
    this.foldTimer = null;
    if (this.closed || this.folding) return;
    this.folding = (async () => {
      for (const [project, n] of this.unfolded) {
        if (n < atLeast) continue;
        this.unfolded.delete(project);
        // Another process folding the project takes these views too (or a query will).
        await foldPending(this.pool, project, false).catch(() => {});
      }
    })().finally(() => {
      this.folding = null;
      if ([...this.unfolded.values()].some((n) => n > 0)) this.foldLater();
    });
  }
}

/** Whether the project has views not yet folded into the first-visit table. */
async function hasPending(pool: pg.Pool, project: number): Promise<boolean> {
  const result = await pool.query('select 1 from analytics_pending where project = $1 limit 1', [project]);
  return result.rows.length > 0;
}
