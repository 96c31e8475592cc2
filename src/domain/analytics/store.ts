import type { Category, Purpose } from './categories.ts';
import type { SaltRotation } from './identity.ts';
import { DEFAULT_PAGE_RULES, type PageRules, withDefaults } from './page-rules.ts';

/**
 * The analytics store: where views are appended and how the exports are answered. It holds
 * views only; salts and settings live beside it (SaltStore, AnalyticsSettingsStore), so every
 * backend (the embedded engine, PostgreSQL, ClickHouse; src/integrations/analytics) answers
 * the same exports for the same views.
 */
export interface AnalyticsStore {
  /**
   * Appends views durably: when the promise resolves, the events survive a crash. Events whose
   * `eventKey` is already stored are counted as duplicates and not stored again.
   */
  append(projectId: string, events: readonly PreparedEvent[]): Promise<AppendResult>;
  /**
   * Appends a preparation thread's events as they arrive, in columns, exactly as `append`
   * appends them decoded (`decodePreparedBatch`), without an object per event. Optional: a
   * store without it is given the decoded events.
   */
  appendColumns?(projectId: string, columns: PreparedColumns): Promise<AppendResult>;
  /** Distinct visitors per page, or views per page with `measure: 'views'`. */
  pages(projectId: string, query: PageQuery): Promise<PageReport>;
  timeSeries(projectId: string, query: SeriesQuery): Promise<SeriesPoint[]>;
  breakdown(projectId: string, query: BreakdownQuery): Promise<Breakdown>;
  /**
   * Classifies again every stored view of the project that an older classifier version
   * classified, keeping its time, page and visitor; the exports reflect the new categories.
   */
  reclassify(projectId: string, classifier: Reclassifier): Promise<ReclassifyResult>;
  /** Removes every view of the project; the exports then answer as for a new one. */
  deleteProject(projectId: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The secret salts of visitor identity, shared by every process of a deployment so that two
 * API nodes derive the same visitor from the same request.
 */
export interface SaltStore {
  /** The secret salt of a period, created on first use and kept until `forgetSalts`. */
  salt(period: string): Promise<Buffer>;
  /** Deletes the salts whose period `expired` says so; returns those periods. */
  forgetSalts(expired: (period: string) => boolean): Promise<string[]>;
}

/**
 * Each project's analytics settings: what was saved, completed by `completeAnalyticsSettings`
 * (DEFAULT_ANALYTICS_SETTINGS until saved).
 */
export interface AnalyticsSettingsStore {
  settings(projectId: string): Promise<AnalyticsSettings>;
  saveSettings(projectId: string, settings: AnalyticsSettings): Promise<void>;
  deleteSettings(projectId: string): Promise<void>;
}

/** A view, classified and identified, ready to store. Holds no IP address. */
export interface PreparedEvent {
  /**
   * The SHA-256 of (project, caller id) as a latin1 string (one character per byte; the store
   * keeps the first 8 bytes), or null when the caller gave no id.
   */
  eventKey: string | null;
  /** Milliseconds since the epoch, UTC. */
  timestamp: number;
  /** The normalised page path. */
  path: string;
  /** 16-byte visitor key (see VisitorIdentity). */
  visitorKey: Buffer;
  category: Category;
  /** Why an AI agent fetched it (null for human, search and bot views). */
  purpose: Purpose | null;
  agent: string;
  classifierVersion: number;
  /** Kept so views can be reclassified when the agent list changes. */
  userAgent: string;
  /** EVENT_FLAGS bits: how the page was fetched. */
  flags: number;
  status: number | null;
  referrer: string | null;
  /**
   * True when the agent's operator publishes the IP ranges its crawlers use and the request
   * came from one of them (see crawler-ranges.ts); false otherwise, and for every human view.
   * Decided at ingest: the IP is not stored, so reclassification keeps it as it is.
   */
  verified: boolean;
}

/**
 * Prepared events as columns of typed arrays, and tables of the distinct strings, the form in
 * which a preparation thread hands them over (see prepared-batch.ts, which encodes and decodes
 * it). Event i is:
 * - `timestamp`: `timestamps[i]`; `visitorKey`: bytes [16·i, 16·(i + 1)) of `visitorKeys`;
 * - `eventKey`: the next `eventKeyLengths[i]` characters of `eventKeys`, null where that is −1;
 * - `codes[i]`: the category's index in CATEGORIES (low 3 bits), the purpose's index in
 *   PURPOSES + 1 (next 3 bits, 0 for none), verified (bit 6);
 * - `flags[i]`, `classifierVersions[i]`, `status`: `statuses[i]`, null where it is −1;
 * - path, user agent, agent, referrer: `strings[stringRefs[4·i + k]]`, k = 0..3 (−1: a null
 *   referrer).
 */
export interface PreparedColumns {
  count: number;
  timestamps: Float64Array;
  visitorKeys: Uint8Array;
  eventKeys: string;
  eventKeyLengths: Int32Array;
  codes: Uint8Array;
  flags: Uint8Array;
  classifierVersions: Uint16Array;
  statuses: Int16Array;
  strings: string[];
  stringRefs: Int32Array;
}

export const EVENT_FLAGS = { markdownPath: 1, acceptsMarkdown: 2, llmsTxt: 4 } as const;
/** Every EVENT_FLAGS bit: a store may use the byte's other bits for itself. */
export const EVENT_FLAGS_MASK = 7;

/** The current classifier, as `reclassify` applies it to a stored view. */
export interface Reclassifier {
  version: number;
  /** The view's category, purpose and agent from its stored user agent and EVENT_FLAGS. */
  classify(userAgent: string, flags: number): { category: Category; purpose: Purpose | null; agent: string };
}

export interface ReclassifyResult {
  /** Views classified by an older version, now classified by this one. */
  examined: number;
  /** Of those, views whose category, purpose or agent changed. */
  changed: number;
}

/** What a rebuild of a project's derived state did (AnalyticsService.rebuild). */
export interface RebuildResult {
  /** False on an engine that keeps no derived state apart from the views (nothing to do). */
  rebuilt: boolean;
  /** The views it was built from (0 when not rebuilt). */
  views: number;
}

export interface AppendResult {
  accepted: number;
  duplicates: number;
}

/** Half-open `[from, to)` in epoch milliseconds; null is unbounded. */
export interface TimeRange {
  from: number | null;
  to: number | null;
}

export interface PageQuery {
  range: TimeRange;
  measure: 'visitors' | 'views';
  limit: number;
  offset: number;
  /** Count `ai_crawler` views as `ai` (a project setting). */
  countAiCrawlersAsAi: boolean;
  /** Count agents only when verified (see VERIFIABLE_CATEGORIES). */
  verifiedOnly: boolean;
}

/**
 * The categories whose views count as `bot` when a query asks for verified agents only and the
 * view is not `verified`: a user agent is only a claim.
 */
export const VERIFIABLE_CATEGORIES: readonly Category[] = ['ai', 'ai_crawler', 'search'];

/** A view's category as a query counts it: unverified agents are bots under `verifiedOnly`. */
export function countedCategory(category: Category, verified: boolean, verifiedOnly: boolean): Category {
  return verifiedOnly && !verified && VERIFIABLE_CATEGORIES.includes(category) ? 'bot' : category;
}

export interface Counts extends PurposeSplit {
  human: number;
  ai: number;
  total: number;
}

/**
 * Distinct visitors (or views, for the views measure) among the views of AI agents (categories
 * `ai` and `ai_crawler`, as `countedCategory` gives them) with each purpose, whatever
 * `countAiCrawlersAsAi` says: with the default setting `aiAssistant` equals `ai`, and the other
 * three show the crawler traffic that `ai` and `total` leave out.
 */
export interface PurposeSplit {
  aiAssistant: number;
  aiSearch: number;
  aiTraining: number;
  aiOther: number;
}

/**
 * One operator's traffic in a breakdown: every view (every verified view, under `verifiedOnly`)
 * whose agent the agent list gives that operator, with distinct visitors across all of its agents. Ordered by visitors descending,
 * then operator ascending.
 */
export interface OperatorRow {
  operator: string;
  visitors: number;
  views: number;
}

/** Agent name → operator, from the agent list at query time (so list updates apply). */
export type OperatorOf = ReadonlyMap<string, string>;

export interface PageRow extends Counts {
  path: string;
}

export interface PageReport {
  totals: Counts;
  /** Ordered by total descending, then path ascending. */
  rows: PageRow[];
  hasMore: boolean;
}

export interface SeriesQuery {
  range: TimeRange;
  interval: 'day' | 'hour';
  countAiCrawlersAsAi: boolean;
  verifiedOnly: boolean;
}

export interface SeriesPoint {
  /** Start of the bucket (UTC), clipped to the range. */
  start: number;
  visitors: Counts;
  views: Counts;
}

export interface BreakdownQuery {
  range: TimeRange;
  /** Agent name → operator (see `agentOperators`), applied at query time. */
  operatorOf: OperatorOf;
  /**
   * Unverified `ai`, `ai_crawler` and `search` views count as `bot` (in the categories, and in
   * the agents as `(agent, 'bot')`), and the operators count verified views only.
   */
  verifiedOnly: boolean;
}

export interface Breakdown {
  categories: Array<{ category: Category; visitors: number; views: number }>;
  /** Ordered by visitors descending, then agent ascending. */
  agents: Array<{ agent: string; category: Category; visitors: number; views: number }>;
  /** Every view whose agent has an operator, by operator (see OperatorRow). */
  operators: OperatorRow[];
}

export interface AnalyticsSettings {
  /** Origins allowed to post from the browser tracker, e.g. `https://docs.example.com`. */
  allowedOrigins: string[];
  countAiCrawlersAsAi: boolean;
  /**
   * How often this project's anonymous visitor ids reset; null: the deployment's
   * (DOCWRIGHT_ANALYTICS_SALT_ROTATION). A change applies to views stored from then on.
   */
  saltRotation: SaltRotation | null;
  /** Which requests are page views, and which page each is (see page-rules.ts). */
  pageRules: PageRules;
}

export const DEFAULT_ANALYTICS_SETTINGS: AnalyticsSettings = {
  allowedOrigins: [],
  countAiCrawlersAsAi: false,
  saltRotation: null,
  pageRules: DEFAULT_PAGE_RULES,
};

/**
 * Stored settings (of any earlier version, or none) as complete settings: the defaults fill
 * what is missing, page rules field by field. The one place the defaults are applied.
 */
export function completeAnalyticsSettings(
  stored: Partial<AnalyticsSettings> | null | undefined,
): AnalyticsSettings {
  return { ...DEFAULT_ANALYTICS_SETTINGS, ...stored, pageRules: withDefaults(stored?.pageRules) };
}

/** A change to a project's analytics settings: the fields given (and page rules given) change. */
export type AnalyticsSettingsChange = {
  [K in Exclude<keyof AnalyticsSettings, 'pageRules'>]?: AnalyticsSettings[K] | undefined;
} & { pageRules?: Partial<PageRules> | undefined };

/**
 * Reading a project's stored views back, in a stable order, to copy them to another backend
 * (`docwright analytics migrate`). A view comes back with every stored field; its `eventKey`
 * holds only the bytes the store keeps (appending it again elsewhere keeps the same key).
 */
export interface ViewScanner {
  /**
   * Up to `limit` views after `cursor` (null: from the first), ordered by time and then by
   * every stored field; `next` is null after the last view. A cursor names a position
   * (time, and how many views of that very millisecond came before), so it stays valid
   * across processes as long as no view is added at or before it.
   */
  scan(projectId: string, cursor: string | null, limit: number): Promise<ViewScan>;
  /** How many views the project has stored. */
  countViews(projectId: string): Promise<number>;
}

/**
 * A store that takes a large set of already prepared views faster than through `append`: the
 * views go in big blocks, and what `append` keeps up to date per view (first-visit tables) is
 * built once for the whole project by `finishBulk`. Between the first `bulkAppend` and the end
 * of `finishBulk` the project's exports are wrong and nothing else may write its views.
 */
export interface BulkLoader {
  /** Stores views as `append` does (duplicates by event key dropped), without derived state. */
  bulkAppend(projectId: string, events: readonly PreparedEvent[]): Promise<AppendResult>;
  /** Builds the project's derived state from all its stored views; running it again is harmless. */
  finishBulk(projectId: string): Promise<void>;
}

export function isViewScanner(store: object): store is ViewScanner {
  return 'scan' in store && 'countViews' in store;
}

export function isBulkLoader(store: object): store is BulkLoader {
  return 'bulkAppend' in store && 'finishBulk' in store;
}

export interface ViewScan {
  views: PreparedEvent[];
  next: string | null;
}

/** A scan position: views before `timestamp`, and the first `skip` views at it, are behind. */
export interface ScanPosition {
  timestamp: number;
  skip: number;
}

export function encodeScanCursor(position: ScanPosition): string {
  return `${position.timestamp}:${position.skip}`;
}

export function decodeScanCursor(cursor: string | null): ScanPosition {
  if (cursor === null) return { timestamp: Number.MIN_SAFE_INTEGER, skip: 0 };
  const match = /^(-?\d+):(\d+)$/.exec(cursor);
  if (match === null) throw new Error(`Invalid scan cursor ${JSON.stringify(cursor)}`);
  return { timestamp: Number(match[1]), skip: Number(match[2]) };
}

/** The position after `views`, read from `from` in order; null when fewer than `limit` came. */
export function nextScanCursor(
  from: ScanPosition,
  views: readonly PreparedEvent[],
  limit: number,
): string | null {
  if (views.length < limit) return null;
  const last = (views[views.length - 1] as PreparedEvent).timestamp;
  let atLast = 0;
  for (const view of views) if (view.timestamp === last) atLast++;
  return encodeScanCursor({ timestamp: last, skip: last === from.timestamp ? from.skip + atLast : atLast });
}
