import { hash } from 'node:crypto';
import { isIP } from 'node:net';
import type { Clock } from '../clock.ts';
import type { Category } from './categories.ts';
import { acceptsMarkdown, CLASSIFIER_VERSION, classify } from './classifier.ts';
import { CrawlerRanges } from './crawler-ranges.ts';
import { EXPLICIT_ID_PERIOD, type VisitorIdentity } from './identity.ts';
import { parseIPv4 } from './identity-cache.ts';
import { PageRuleSet, type PageRules } from './page-rules.ts';
import type { PagePath } from './paths.ts';
import {
  type AnalyticsSettings,
  type AnalyticsSettingsStore,
  type AnalyticsStore,
  EVENT_FLAGS,
  type PreparedEvent,
} from './store.ts';
import { parseDateTime } from './timestamps.ts';

/** One view as a caller sends it (API, tracker or a parsed log line). */
export interface IncomingEvent {
  timestamp: string | number;
  path: string;
  userAgent: string;
  ip?: string | undefined;
  visitorId?: string | undefined;
  accept?: string | undefined;
  referrer?: string | undefined;
  status?: number | undefined;
  id?: string | number | undefined;
  /** The response's content type, when a log records it (not an API field). */
  contentType?: string | undefined;
}

export interface EventRejection {
  index: number;
  reason: string;
}

export interface IngestResult {
  accepted: number;
  duplicates: number;
  rejected: EventRejection[];
  /** Log import only: the valid views by category, stored now or before (duplicates). */
  categories?: Partial<Record<Category, number>>;
}

const EARLIEST = Date.UTC(2000, 0, 1);
const MAX_FUTURE_MS = 24 * 3_600_000;
const MAX_TEXT = 1024;
const MAX_ID = 256;

export interface PrepareOptions {
  /** Longest accepted event id (API: 256; log import uses the line itself). */
  maxIdLength?: number;
  /**
   * The events were built by the log parser (typed fields, a client IP, a page-view status):
   * they are checked in place, without copying each one.
   */
  parsed?: boolean;
}

interface Checked {
  index: number;
  event: IncomingEvent;
  timestamp: number;
  page: PagePath;
}

/**
 * The one ingestion pipeline behind the API, the browser tracker and log import: validate
 * each event on its own (a bad event is rejected with its index and reason, the rest go on),
 * normalise the path, classify, derive the visitor key and the idempotency key, and append.
 */
export class Ingestor {
  private readonly store: AnalyticsStore;
  private readonly settings: AnalyticsSettingsStore;
  private readonly clock: Clock;
  readonly preparer: EventPreparer;

  constructor(options: {
    store: AnalyticsStore;
    settings: AnalyticsSettingsStore;
    identity: VisitorIdentity;
    clock: Clock;
    /** The operators' published crawler IP ranges that verify agents (default: none). */
    crawlerRanges?: CrawlerRanges | undefined;
  }) {
    this.store = options.store;
    this.settings = options.settings;
    this.clock = options.clock;
    this.preparer = new EventPreparer(options.identity, options.crawlerRanges ?? CrawlerRanges.none);
  }

  /** The project's page-view rules, as its settings say now. */
  async pageRules(projectId: string): Promise<PageRuleSet> {
    return this.preparer.ruleSet((await this.settings.settings(projectId)).pageRules);
  }

  async ingest(
    projectId: string,
    events: readonly unknown[],
    options: PrepareOptions = {},
  ): Promise<IngestResult> {
    const { prepared, rejected } = await this.prepare(projectId, events, options);
    return this.append(projectId, prepared, rejected, options);
  }

  /** Stores events prepared here or by a preparation thread (see preparation-pool.ts). */
  async append(
    projectId: string,
    prepared: readonly PreparedEvent[],
    rejected: EventRejection[],
    options: PrepareOptions = {},
  ): Promise<IngestResult> {
    const { accepted, duplicates } = await this.store.append(projectId, prepared);
    if (!options.parsed) return { accepted, duplicates, rejected };
    const categories: Partial<Record<Category, number>> = {};
    for (const { category } of prepared) categories[category] = (categories[category] ?? 0) + 1;
    return { accepted, duplicates, rejected, categories };
  }

  async prepare(
    projectId: string,
    events: readonly unknown[],
    options: PrepareOptions = {},
  ): Promise<{ prepared: PreparedEvent[]; rejected: EventRejection[] }> {
    // Read per batch, so a change made through another process holds.
    const settings = await this.settings.settings(projectId);
    return this.preparer.prepare(projectId, events, settings, this.clock().getTime(), options);
  }
}

/** What preparing a batch needs of the project's settings. */
export type PreparationSettings = Pick<AnalyticsSettings, 'pageRules' | 'saltRotation'>;

/**
 * Validation, classification and visitor keys, without storage or settings lookups: the part of
 * ingestion that needs only CPU, so that it can run in a preparation thread as well as here.
 */
export class EventPreparer {
  private readonly identity: VisitorIdentity;
  private ranges: CrawlerRanges;
  /** Compiled page-view rules, by their JSON: projects mostly share the defaults. */
  private readonly ruleSets = new Map<string, PageRuleSet>();

  constructor(identity: VisitorIdentity, crawlerRanges: CrawlerRanges) {
    this.identity = identity;
    this.ranges = crawlerRanges;
  }

  /** The ranges that verify agents now. */
  get crawlerRanges(): CrawlerRanges {
    return this.ranges;
  }

  /** Verifies the events prepared from now on with these ranges (refreshed lists). */
  setCrawlerRanges(ranges: CrawlerRanges): void {
    this.ranges = ranges;
  }

  ruleSet(rules: PageRules): PageRuleSet {
    const key = JSON.stringify(rules);
    let set = this.ruleSets.get(key);
    if (!set) {
      if (this.ruleSets.size >= 100) this.ruleSets.clear();
      set = new PageRuleSet(rules);
      this.ruleSets.set(key, set);
    }
    return set;
  }

  /** Prepares a batch under these settings, `now` (epoch ms) bounding timestamps in the future. */
  async prepare(
    projectId: string,
    events: readonly unknown[],
    settings: PreparationSettings,
    now: number,
    options: PrepareOptions = {},
  ): Promise<{ prepared: PreparedEvent[]; rejected: EventRejection[] }> {
    const maxId = options.maxIdLength ?? MAX_ID;
    const rejected: EventRejection[] = [];
    const checked: Checked[] = [];
    const latest = now + MAX_FUTURE_MS;
    const validate = options.parsed ? checkParsed : check;
    const rules = this.ruleSet(settings.pageRules);
    for (let index = 0; index < events.length; index++) {
      const problem = validate(events[index], latest, maxId, index, rules);
      if (typeof problem === 'string') rejected.push({ index, reason: problem });
      else checked.push(problem);
    }

    // The project's own rotation.
    const rotation = settings.saltRotation ?? this.identity.rotation;
    const periods = new Set<string>();
    let lastDay = Number.NaN;
    for (const { event, timestamp } of checked) {
      if (event.visitorId !== undefined) periods.add(EXPLICIT_ID_PERIOD);
      else {
        // Naming a period costs a date string: once per UTC day of the batch is enough.
        const day = Math.floor(timestamp / 86_400_000);
        if (day === lastDay) continue;
        lastDay = day;
        periods.add(this.identity.periodOf(timestamp, rotation));
      }
    }
    const salts = await this.identity.prepare(periods);

    const prepared: PreparedEvent[] = [];
    for (const { event, timestamp, page } of checked) {
      const wantsMarkdown = acceptsMarkdown(event.accept);
      const { category, purpose, agent, operator } = classify(event.userAgent, {
        markdownPath: page.markdownPath,
        acceptsMarkdown: wantsMarkdown,
        llmsTxt: page.llmsTxt,
      });
      prepared.push({
        eventKey: event.id === undefined ? null : eventKey(projectId, String(event.id)),
        timestamp,
        path: page.path,
        visitorKey:
          event.visitorId === undefined
            ? this.identity.anonymousKey(
                projectId,
                timestamp,
                event.ip ?? '',
                event.userAgent,
                salts,
                rotation,
              )
            : this.identity.key(
                { projectId, timestamp, visitorId: event.visitorId, userAgent: event.userAgent },
                salts,
              ),
        category,
        purpose,
        agent,
        classifierVersion: CLASSIFIER_VERSION,
        userAgent: event.userAgent.slice(0, MAX_TEXT),
        flags:
          (page.markdownPath ? EVENT_FLAGS.markdownPath : 0) |
          (wantsMarkdown ? EVENT_FLAGS.acceptsMarkdown : 0) |
          (page.llmsTxt ? EVENT_FLAGS.llmsTxt : 0),
        status: event.status ?? null,
        referrer: cleanReferrer(event.referrer),
        verified:
          category !== 'human' && this.crawlerRanges.verifies(agent, operator ?? undefined, event.ip ?? null),
      });
    }
    return { prepared, rejected };
  }
}

/**
 * The SHA-256 of (project, caller id), whose first bytes name the event: retries with the same
 * id are stored once. A latin1 string, not a Buffer: one per imported line, and a Buffer costs
 * twice the hash itself and more garbage collection.
 */
export function eventKey(projectId: string, id: string): string {
  return hash('sha256', `${projectId}\u0000${id}`, 'binary'); // 'binary' is latin1
}

/**
 * Validates an event from the log parser, which already gives a string path and user agent, a
 * client IP, a page-view status and a string id: the rest is checked as `check` does, with the
 * same reasons, and the event is kept as it is.
 */
function checkParsed(
  raw: unknown,
  latest: number,
  maxId: number,
  index: number,
  rules: PageRuleSet,
): string | Checked {
  const e = raw as IncomingEvent;
  let timestamp: number | null;
  if (typeof e.timestamp === 'number') timestamp = Number.isInteger(e.timestamp) ? e.timestamp : null;
  else timestamp = parseDateTime(e.timestamp);
  if (timestamp === null) {
    return 'timestamp must be an ISO 8601 date-time with an offset (e.g. 2025-03-01T12:00:00Z) or epoch milliseconds';
  }
  if (timestamp < EARLIEST) return 'timestamp is before 2000-01-01';
  if (timestamp > latest) return 'timestamp is more than a day in the future';
  const page = rules.page(e.path);
  if (page === null) return PATH_PROBLEM;
  if ('notPage' in page) return page.notPage;
  const contentType = rules.contentTypeProblem(e.contentType);
  if (contentType) return contentType;
  const ip = e.ip;
  if (ip === undefined) return 'ip or visitorId is required to tell visitors apart';
  if (ip.length > 64) return 'ip must be at most 64 characters';
  if (parseIPv4(ip) === -1 && isIP(ip) === 0) return 'ip must be an IPv4 or IPv6 address';
  if (e.accept !== undefined && e.accept.length > MAX_TEXT)
    return `accept must be at most ${MAX_TEXT} characters`;
  if (e.referrer !== undefined && e.referrer.length > 2048) return 'referrer must be at most 2048 characters';
  const id = e.id;
  if (typeof id === 'string' && (id.length === 0 || id.length > maxId)) {
    return `id must be a non-empty string of at most ${maxId} characters, or an integer`;
  }
  e.timestamp = timestamp;
  return { index, timestamp, page, event: e };
}

const PATH_PROBLEM =
  'path must be a URL path starting with / (or a full http(s) URL), without spaces, at most 2048 characters';

const EVENT_FIELDS = new Set([
  'timestamp',
  'path',
  'userAgent',
  'ip',
  'visitorId',
  'accept',
  'referrer',
  'status',
  'id',
]);

/** Validates one event; returns the reason it is rejected, or the event and its time. */
function check(
  raw: unknown,
  latest: number,
  maxId: number,
  index: number,
  rules: PageRuleSet,
): string | Checked {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'event must be a JSON object';
  const e = raw as Record<string, unknown>;
  // A misspelt field (useragent, visitor_id) must not pass as an event without it.
  for (const field in e) {
    if (!EVENT_FIELDS.has(field)) return `unknown field "${field}"`;
  }

  let timestamp: number | null = null;
  if (typeof e.timestamp === 'string') timestamp = parseDateTime(e.timestamp);
  else if (typeof e.timestamp === 'number' && Number.isInteger(e.timestamp)) timestamp = e.timestamp;
  else if (e.timestamp === undefined) return 'timestamp is required';
  if (timestamp === null) {
    return 'timestamp must be an ISO 8601 date-time with an offset (e.g. 2025-03-01T12:00:00Z) or epoch milliseconds';
  }
  if (timestamp < EARLIEST) return 'timestamp is before 2000-01-01';
  if (timestamp > latest) return 'timestamp is more than a day in the future';

  if (e.path === undefined) return 'path is required';
  const page = typeof e.path === 'string' ? rules.page(e.path) : null;
  if (typeof e.path !== 'string' || page === null) return PATH_PROBLEM;
  if ('notPage' in page) return page.notPage;
  if (e.userAgent === undefined)
    return 'userAgent is required (send an empty string if the request had none)';
  if (typeof e.userAgent !== 'string') return 'userAgent must be a string';

  const ip = optionalString(e.ip, 'ip', 64);
  if (typeof ip === 'object') return ip.error;
  if (ip !== undefined && isIP(ip) === 0) return 'ip must be an IPv4 or IPv6 address';
  const visitorId = optionalString(e.visitorId, 'visitorId', MAX_ID);
  if (typeof visitorId === 'object') return visitorId.error;
  if (visitorId === '') return 'visitorId must not be empty';
  if (ip === undefined && visitorId === undefined)
    return 'ip or visitorId is required to tell visitors apart';
  const accept = optionalString(e.accept, 'accept', MAX_TEXT);
  if (typeof accept === 'object') return accept.error;
  const referrer = optionalString(e.referrer, 'referrer', 2048);
  if (typeof referrer === 'object') return referrer.error;

  let status: number | undefined;
  if (e.status !== undefined && e.status !== null) {
    if (typeof e.status !== 'number' || !Number.isInteger(e.status) || e.status < 100 || e.status > 599) {
      return 'status must be an HTTP status code (100-599)';
    }
    if (!isPageView(e.status)) return `status ${e.status} is not a successful page view (2xx or 304)`;
    status = e.status;
  }

  let id: string | undefined;
  if (e.id !== undefined && e.id !== null) {
    if (typeof e.id === 'number' && Number.isSafeInteger(e.id)) id = String(e.id);
    else if (typeof e.id === 'string' && e.id.length > 0 && e.id.length <= maxId) id = e.id;
    else return `id must be a non-empty string of at most ${maxId} characters, or an integer`;
  }

  return {
    index,
    timestamp,
    page,
    event: {
      timestamp,
      path: e.path,
      userAgent: e.userAgent,
      ip,
      visitorId,
      accept,
      referrer,
      status,
      id,
    },
  };
}

export function isPageView(status: number): boolean {
  return (status >= 200 && status < 300) || status === 304;
}

function optionalString(value: unknown, name: string, max: number): string | undefined | { error: string } {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return { error: `${name} must be a string` };
  if (value.length > max) return { error: `${name} must be at most ${max} characters` };
  return value;
}

/** Referrers keep origin and path only: query strings often carry personal data. */
function cleanReferrer(referrer: string | undefined): string | null {
  if (!referrer) return null;
  if (!URL.canParse(referrer)) return null;
  const url = new URL(referrer);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return `${url.origin}${url.pathname}`;
}
