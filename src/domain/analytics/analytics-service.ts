import type { Clock } from '../clock.ts';
import { invalid } from '../errors.ts';
import { agentOperators } from './agent-list.ts';
import { CLASSIFIER_VERSION, classify } from './classifier.ts';
import type { CrawlerRanges } from './crawler-ranges.ts';
import { SALT_ROTATIONS, type SaltRotation, saltExpired, VisitorIdentity } from './identity.ts';
import { type IncomingEvent, Ingestor, type IngestResult } from './ingest.ts';
import { DEFAULT_ANALYTICS_OPTIONS } from './options.ts';
import { changePageRules, type PageRuleSet } from './page-rules.ts';
import { PreparationPool } from './preparation-pool.ts';
import { decodePreparedBatch } from './prepared-batch.ts';
import type { Interval, PageParams } from './query-params.ts';
import {
  type AnalyticsSettings,
  type AnalyticsSettingsChange,
  type AnalyticsSettingsStore,
  type AnalyticsStore,
  type Breakdown,
  EVENT_FLAGS,
  isBulkLoader,
  isViewScanner,
  type PageReport,
  type RebuildResult,
  type ReclassifyResult,
  type SaltStore,
  type SeriesPoint,
  type TimeRange,
} from './store.ts';

export interface AnalyticsServiceOptions {
  /** Where views are stored and counted. */
  store: AnalyticsStore;
  /** Visitor-identity salts, shared by every process. */
  salts: SaltStore;
  /** Per-project settings. */
  settings: AnalyticsSettingsStore;
  clock: Clock;
  /** Salt rotation for anonymous visitor ids (default daily). */
  saltRotation?: SaltRotation;
  /** Days a rotated salt is kept after its period ends (default 7). */
  saltRetentionDays?: number;
  /** Most events one ingestion request may carry. */
  maxBatch?: number;
  /** (IP, user agent) pairs whose visitor key is kept in memory (default 200,000). */
  identityCacheLimit?: number;
  /** The operators' published crawler IP ranges that verify agents at ingest (default: none). */
  crawlerRanges?: CrawlerRanges;
  /** Threads preparing large ingestion bodies (see `ingestBody`); 0 (default): none. */
  preparationThreads?: number;
  /** A preparation thread failed; the batch it held was prepared on this thread instead. */
  onPreparationError?: (error: Error) => void;
}

/**
 * Bodies from this size (about 70 events) are worth a preparation thread; smaller ones are
 * prepared at once, sparing them the messages' latency.
 */
const THREAD_BODY_MIN_BYTES = 16 * 1024;

/** What every export may ask besides its range: count verified agents only. */
export interface AgentFilter {
  verifiedOnly?: boolean;
}

export type { AnalyticsSettingsChange } from './store.ts';

/** Docs analytics: ingestion from every source, and the exports, per project. */
export class AnalyticsService {
  readonly store: AnalyticsStore;
  /** The agent list's operators, passed to every breakdown (the list is the classifier's). */
  private readonly operatorOf = agentOperators();
  private readonly salts: SaltStore;
  private readonly settingsStore: AnalyticsSettingsStore;
  readonly maxBatch: number;
  readonly saltRotation: SaltRotation;
  private readonly ingestor: Ingestor;
  private readonly identity: VisitorIdentity;
  private readonly clock: Clock;
  private readonly saltRetentionDays: number;
  private readonly pool: PreparationPool | null;

  constructor(options: AnalyticsServiceOptions) {
    this.store = options.store;
    this.salts = options.salts;
    this.settingsStore = options.settings;
    this.clock = options.clock;
    this.saltRetentionDays = options.saltRetentionDays ?? DEFAULT_ANALYTICS_OPTIONS.saltRetentionDays;
    this.maxBatch = options.maxBatch ?? DEFAULT_ANALYTICS_OPTIONS.maxBatch;
    this.saltRotation = options.saltRotation ?? DEFAULT_ANALYTICS_OPTIONS.saltRotation;
    const identity = new VisitorIdentity({
      rotation: this.saltRotation,
      salts: options.salts,
      ...(options.identityCacheLimit ? { cacheLimit: options.identityCacheLimit } : {}),
    });
    this.identity = identity;
    this.ingestor = new Ingestor({
      store: options.store,
      settings: options.settings,
      identity,
      clock: options.clock,
      crawlerRanges: options.crawlerRanges,
    });
    const threads = options.preparationThreads ?? 0;
    this.pool =
      threads > 0
        ? new PreparationPool({
            threads,
            rotation: this.saltRotation,
            identityCacheLimit: options.identityCacheLimit ?? 200_000,
            crawlerRanges: this.ingestor.preparer.crawlerRanges,
            salts: options.salts,
            ...(options.onPreparationError ? { onThreadError: options.onPreparationError } : {}),
          })
        : null;
  }

  /** Deletes the salts of periods that ended more than the retention ago; returns how many. */
  async pruneSalts(): Promise<number> {
    const now = this.clock().getTime();
    const forgotten = await this.salts.forgetSalts((period) =>
      saltExpired(period, now, this.saltRetentionDays),
    );
    this.identity.forget(forgotten);
    this.pool?.forget(forgotten);
    return forgotten.length;
  }

  /** Prunes salts now and then every hour until the returned function is called. */
  startSaltPruning(onError: (error: unknown) => void): () => void {
    const prune = () => void this.pruneSalts().catch(onError);
    prune();
    const timer = setInterval(prune, 3_600_000);
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * Verifies agents with these ranges from now on, here and in the preparation threads (after
   * `update-lists` stored new lists; see app/crawler-range-reload.ts). Views already stored
   * keep their mark.
   */
  setCrawlerRanges(ranges: CrawlerRanges): void {
    this.ingestor.preparer.setCrawlerRanges(ranges);
    this.pool?.setCrawlerRanges(ranges);
  }

  /** Validates, classifies and stores views; resolves once they are durable. */
  async ingest(projectId: string, events: readonly unknown[]): Promise<IngestResult> {
    if (events.length > this.maxBatch) {
      throw invalid(`At most ${this.maxBatch} events per request (got ${events.length}); split the batch`);
    }
    return this.ingestor.ingest(projectId, events);
  }

  /** Ingestion batches prepared by preparation threads since start. */
  get batchesPreparedInThreads(): number {
    return this.pool?.batchesPrepared ?? 0;
  }

  /** Whether a request body of this many bytes goes to `ingestBody`. */
  preparesInThreads(bodyBytes: number): boolean {
    return this.pool !== null && bodyBytes >= THREAD_BODY_MIN_BYTES;
  }

  /**
   * Ingests a request body as received (UTF-8 JSON, not yet decoded), prepared by a preparation
   * thread: the same result as `ingest` of its events. Null when the body is not a plain
   * `{ "events": [...] }` of at most `maxBatch` events (or no thread could take it): the caller
   * then parses and validates it, and calls `ingest`, so that every error reads as it does
   * elsewhere.
   */
  async ingestBody(projectId: string, body: Uint8Array): Promise<IngestResult | null> {
    if (!this.pool) return null;
    const settings = await this.settingsStore.settings(projectId);
    const now = this.clock().getTime();
    const batch = await this.pool.prepare(projectId, body, settings, now, this.maxBatch);
    if (!batch) return null;
    if (this.store.appendColumns) {
      const { accepted, duplicates } = await this.store.appendColumns(projectId, batch);
      return { accepted, duplicates, rejected: batch.rejected };
    }
    const { prepared, rejected } = decodePreparedBatch(batch);
    return this.ingestor.append(projectId, prepared, rejected);
  }

  /** For log import: larger batches, same pipeline. */
  ingestMany(projectId: string, events: readonly unknown[]): Promise<IngestResult> {
    return this.ingestor.ingest(projectId, events, { maxIdLength: 64 * 1024 });
  }

  /**
   * Applies the current agent list to the project's views classified by an older one (after
   * an upgrade that changed the list); views keep their time, page and visitor. Page-view
   * rules are not applied again: they decided which requests became views, and a view's raw
   * path is not stored.
   */
  reclassify(projectId: string): Promise<ReclassifyResult> {
    return this.store.reclassify(projectId, {
      version: CLASSIFIER_VERSION,
      classify: (userAgent, flags) =>
        classify(userAgent, {
          markdownPath: (flags & EVENT_FLAGS.markdownPath) !== 0,
          acceptsMarkdown: (flags & EVENT_FLAGS.acceptsMarkdown) !== 0,
          llmsTxt: (flags & EVENT_FLAGS.llmsTxt) !== 0,
        }),
    });
  }

  /**
   * Builds the project's derived state (the first-visit tables the exports count from) again
   * from its stored views, on an engine that keeps it apart from them: ClickHouse, where a
   * server failure in the middle of an insert can store a batch's views without all of their
   * first-visit rows. Appends to the project wait meanwhile, from every process. The embedded
   * engine (its index comes from its log) and PostgreSQL (views and their pending visits in one
   * transaction) keep none apart: nothing is done there.
   */
  async rebuild(projectId: string): Promise<RebuildResult> {
    const { store } = this;
    if (!isBulkLoader(store) || !isViewScanner(store)) return { rebuilt: false, views: 0 };
    await store.finishBulk(projectId);
    return { rebuilt: true, views: await store.countViews(projectId) };
  }

  /** The project's page-view rules, compiled. */
  pageRules(projectId: string): Promise<PageRuleSet> {
    return this.ingestor.pageRules(projectId);
  }

  /** For log import: events as the log parser builds them (see `parseLine`). */
  ingestParsed(projectId: string, events: readonly IncomingEvent[]): Promise<IngestResult> {
    return this.ingestor.ingest(projectId, events, { maxIdLength: 64 * 1024, parsed: true });
  }

  async pages(
    projectId: string,
    measure: 'visitors' | 'views',
    params: PageParams & AgentFilter,
  ): Promise<PageReport> {
    const { countAiCrawlersAsAi } = await this.settingsStore.settings(projectId);
    const { range, limit, offset, verifiedOnly = false } = params;
    return this.store.pages(projectId, { range, limit, offset, measure, countAiCrawlersAsAi, verifiedOnly });
  }

  async timeSeries(
    projectId: string,
    params: { range: TimeRange; interval: Interval } & AgentFilter,
  ): Promise<SeriesPoint[]> {
    const { countAiCrawlersAsAi } = await this.settingsStore.settings(projectId);
    const { range, interval, verifiedOnly = false } = params;
    return this.store.timeSeries(projectId, { range, interval, countAiCrawlersAsAi, verifiedOnly });
  }

  breakdown(projectId: string, params: { range: TimeRange } & AgentFilter): Promise<Breakdown> {
    const { range, verifiedOnly = false } = params;
    return this.store.breakdown(projectId, { range, operatorOf: this.operatorOf, verifiedOnly });
  }

  settings(projectId: string): Promise<AnalyticsSettings> {
    return this.settingsStore.settings(projectId);
  }

  async updateSettings(projectId: string, patch: AnalyticsSettingsChange): Promise<AnalyticsSettings> {
    const current = await this.settings(projectId);
    if (patch.saltRotation != null && !(SALT_ROTATIONS as readonly string[]).includes(patch.saltRotation)) {
      throw invalid(`saltRotation must be one of ${SALT_ROTATIONS.join(', ')}, or null for the deployment's`);
    }
    const next: AnalyticsSettings = {
      allowedOrigins:
        patch.allowedOrigins === undefined
          ? current.allowedOrigins
          : patch.allowedOrigins.map(normaliseOrigin),
      countAiCrawlersAsAi: patch.countAiCrawlersAsAi ?? current.countAiCrawlersAsAi,
      saltRotation: patch.saltRotation === undefined ? current.saltRotation : patch.saltRotation,
      pageRules:
        patch.pageRules === undefined
          ? current.pageRules
          : changePageRules(current.pageRules, patch.pageRules),
    };
    await this.settingsStore.saveSettings(projectId, next);
    return next;
  }

  /** True when the browser tracker may post from `origin` for this project. */
  async isAllowedOrigin(projectId: string, origin: string): Promise<boolean> {
    const { allowedOrigins } = await this.settingsStore.settings(projectId);
    return allowedOrigins.includes('*') || allowedOrigins.includes(origin);
  }

  /** Forgets the project's views and settings (when the project is deleted). */
  async deleteProject(projectId: string): Promise<void> {
    await this.store.deleteProject(projectId);
    await this.settingsStore.deleteSettings(projectId);
  }

  async close(): Promise<void> {
    await this.pool?.close();
    return this.store.close();
  }
}

/** `https://Docs.Example.com:443/` → `https://docs.example.com`; `*` allows any origin. */
export function normaliseOrigin(value: string): string {
  const trimmed = value.trim();
  if (trimmed === '*') return trimmed;
  if (!URL.canParse(trimmed)) throw invalid(`"${value}" is not an origin like https://docs.example.com`);
  const url = new URL(trimmed);
  if (
    !/^https?:$/.test(url.protocol) ||
    (url.pathname !== '/' && url.pathname !== '') ||
    url.search ||
    url.hash
  ) {
    throw invalid(`"${value}" is not an origin like https://docs.example.com (no path or query)`);
  }
  return url.origin;
}
