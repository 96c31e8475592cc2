import fc from 'fast-check';
import { describe, expect, it, onTestFinished } from 'vitest';
import { AnalyticsService } from '../../../src/domain/analytics/analytics-service.ts';
import { CrawlerRanges } from '../../../src/domain/analytics/crawler-ranges.ts';
import type { AnalyticsStore, TimeRange } from '../../../src/domain/analytics/store.ts';
import {
  MemoryAnalyticsMetadata,
  type TestAnalyticsBackend,
  type TestAnalyticsLocation,
} from '../../helpers/analytics-backends.ts';
import { ReferenceAnalytics, type TestEvent } from './reference.ts';

// DOCWRIGHT_TEST_SEED=<the seed a failure printed> replays the same generated cases.
if (process.env.DOCWRIGHT_TEST_SEED) fc.configureGlobal({ seed: Number(process.env.DOCWRIGHT_TEST_SEED) });

const DAY = 86_400_000;
const QUARTER = 900_000;
/** Quarter hours the clipped-edge property puts both views and range bounds on, so they meet. */
const EDGE_QUARTERS = [0, 1, 40, 41, 88, 95];
/** Offsets from those quarter hours inside the quarter before or after them (ms). */
const NEAR_QUARTER = [-420_000, -120_000, -1, 1, 120_000, 420_000];
const BASE = Date.UTC(2025, 2, 1); // 2025-03-01, a Saturday
const NOW = new Date(BASE + 20 * DAY);

const USER_AGENTS = [
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', // human
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot', // ai
  'Claude-User (claude-code/2.1.158; +https://support.anthropic.com/)', // ai
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot', // ai_crawler
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', // search
  'curl/8.5.0', // bot, or ai when fetching Markdown
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot', // ai_crawler, search
  'Mozilla/5.0 (compatible; Diffbot/0.1; +http://www.diffbot.com)', // ai_crawler, other
];

/**
 * Published crawler ranges as the tests have them: every OpenAI agent from one address, only
 * Googlebot (not Google's other agents) from an IPv6 network, Diffbot from another address.
 */
const TEST_RANGES = new CrawlerRanges([
  { operator: 'OpenAI', agents: null, source: 'test', prefixes: ['203.0.113.1/32'] },
  { operator: 'Google', agents: ['Googlebot'], source: 'test', prefixes: ['2001:db8::/32'] },
  { operator: 'Diffbot', agents: null, source: 'test', prefixes: ['203.0.113.2/32'] },
]);
const PATHS = [
  '/',
  '/quickstart',
  '/quickstart/',
  '/quickstart.md',
  '/api?x=1',
  '/api/keys',
  '/llms.txt',
  '/guide/index.md',
];
/** A server engine (PostgreSQL) answers each of the many queries over the network. */
const PROPERTY_TIMEOUT_MS = 300_000;
const OFFSETS = ['Z', '+05:30', '-08:00', '+14:00'];

/** Timestamps clustered at day boundaries, where off-by-one errors live. */
const instant = fc.oneof(
  fc
    .integer({ min: 0, max: 5 })
    .chain((day) =>
      fc.constantFrom(
        BASE + day * DAY,
        BASE + day * DAY - 1,
        BASE + day * DAY + 1,
        BASE + day * DAY + DAY / 2,
      ),
    ),
  fc.integer({ min: BASE - DAY, max: BASE + 6 * DAY }),
);

function isoWithOffset(time: number, offset: string): string {
  if (offset === 'Z') return new Date(time).toISOString();
  const sign = offset.startsWith('-') ? -1 : 1;
  const [h, m] = offset.slice(1).split(':').map(Number);
  const local = new Date(time + sign * ((h ?? 0) * 60 + (m ?? 0)) * 60_000).toISOString().slice(0, 23);
  return `${local}${offset}`;
}

const event: fc.Arbitrary<TestEvent> = fc
  .record({
    time: instant,
    offset: fc.constantFrom(...OFFSETS),
    path: fc.constantFrom(...PATHS),
    ua: fc.constantFrom(...USER_AGENTS),
    who: fc.oneof(
      fc.record({ visitorId: fc.constantFrom('v1', 'v2', 'v3', 'v4') }),
      // A visitor with a fixed id seen from several user agents is one visitor: both human and ai.
      fc.record({ ip: fc.constantFrom('203.0.113.1', '203.0.113.2', '2001:db8::7') }),
    ),
    accept: fc.option(fc.constantFrom('text/markdown', 'text/html'), { nil: undefined }),
    id: fc.option(
      fc.integer({ min: 1, max: 30 }).map((n) => `e${n}`),
      { nil: undefined },
    ),
  })
  .map(({ time, offset, path, ua, who, accept, id }) => ({
    timestamp: isoWithOffset(time, offset),
    path,
    userAgent: ua,
    ...who,
    ...(accept ? { accept } : {}),
    ...(id ? { id } : {}),
  }));

/**
 * Starts long before any event: "from 1970" is a common way to ask for all time. Before the
 * epoch, on it (day 0), just after it, and on the earliest day an event may have.
 */
const EARLY_BOUNDS = [
  '1969-12-31',
  '1970-01-01',
  '1970-01-01T00:00:00+05:30',
  '1970-01-01T00:00:00-08:00',
  '1970-01-02',
  '2000-01-01',
].map((text) => ({ text }));

const bound = fc.option(
  fc.oneof(
    fc
      .integer({ min: -1, max: 6 })
      .map((d) => ({ text: new Date(BASE + d * DAY).toISOString().slice(0, 10) })),
    fc.tuple(instant, fc.constantFrom(...OFFSETS)).map(([t, o]) => ({ text: isoWithOffset(t, o) })),
    fc.constantFrom(...EARLY_BOUNDS),
  ),
  { nil: null },
);

const query = fc.record({
  from: bound,
  to: bound,
  measure: fc.constantFrom('visitors' as const, 'views' as const),
  limit: fc.integer({ min: 1, max: 4 }),
  countAiCrawlersAsAi: fc.boolean(),
  verifiedOnly: fc.boolean(),
});

interface Opened {
  store: AnalyticsStore;
  service: AnalyticsService;
}

/** Opens the store of a location; salts and settings outlive the store's restarts. */
function opener(location: TestAnalyticsLocation): () => Promise<Opened> {
  const metadata = new MemoryAnalyticsMetadata();
  return async () => {
    const store = await location.open({ clock: () => NOW });
    const service = new AnalyticsService({
      store,
      salts: metadata,
      settings: metadata,
      clock: () => NOW,
      saltRotation: 'daily',
      crawlerRanges: TEST_RANGES,
    });
    return { store, service };
  };
}

/**
 * Where each property run keeps its views. The embedded engine: a fresh file per run. A server
 * engine: one schema or database per property, made on its first run (making one is most of a
 * run's cost there: ~0.7 s on PostgreSQL and ~4 s on ClickHouse 18.16 on a busy 2-core machine,
 * against ~0.1 s to reopen one), and a project of its own per run, so each run also checks that
 * the views of the runs before it (other projects) stay out of its answers.
 */
class RunPlaces {
  private readonly backend: TestAnalyticsBackend;
  private shared: Promise<TestAnalyticsLocation> | undefined;
  private runs = 0;

  constructor(backend: TestAnalyticsBackend) {
    this.backend = backend;
  }

  async next(
    projectPrefix: string,
  ): Promise<{ location: TestAnalyticsLocation; projectId: string; release(): Promise<void> }> {
    const projectId = `${projectPrefix}${++this.runs}`;
    if (this.backend.name === 'embedded') {
      const location = await this.backend.create();
      return { location, projectId, release: () => location.drop() };
    }
    this.shared ??= this.backend.create();
    return { location: await this.shared, projectId, release: async () => {} };
  }

  /** Drops the shared schema or database, once the property is done. */
  async drop(): Promise<void> {
    if (this.shared) await (await this.shared).drop();
  }
}

function toRange(q: { from: { text: string } | null; to: { text: string } | null }): TimeRange | null {
  const parse = (b: { text: string } | null) =>
    b === null ? null : b.text.length === 10 ? Date.parse(`${b.text}T00:00:00Z`) : Date.parse(b.text);
  const range = { from: parse(q.from), to: parse(q.to) };
  if (range.from !== null && range.to !== null && range.from >= range.to) return null;
  return range;
}

/**
 * The store's answers against the brute-force reference on one backend. Each backend's cases run
 * from a test file of their own (store-properties-<backend>.test.ts), so test workers share them.
 */
export function describeStoreProperties(backend: TestAnalyticsBackend): void {
  describe(`${backend.name} analytics store against a brute-force reference`, () => {
    it(
      'gives exact counts and a complete, exact pagination walk, across restarts and late events',
      async () => {
        const places = new RunPlaces(backend);
        onTestFinished(() => places.drop());
        await fc.assert(
          fc.asyncProperty(
            fc.array(fc.array(event, { minLength: 0, maxLength: 25 }), { minLength: 1, maxLength: 5 }),
            fc.array(query, { minLength: 1, maxLength: 4 }),
            fc.integer({ min: -1, max: 4 }),
            async (batches, queries, restartAfter) => {
              const { location, projectId, release } = await places.next('prj_test');
              const openStore = opener(location);
              let { store, service } = await openStore();
              const reference = new ReferenceAnalytics(TEST_RANGES);
              // A range that is empty by its bounds (from >= to) is refused before it reaches the store.
              const valid = queries.flatMap((q) => {
                const range = toRange(q);
                return range ? [{ q, range }] : [];
              });
              try {
                for (const [i, batch] of batches.entries()) {
                  const result = await service.ingest(projectId, batch);
                  expect(result.rejected).toEqual([]);
                  expect({ accepted: result.accepted, duplicates: result.duplicates }).toEqual(
                    reference.add(batch),
                  );
                  // Query between batches so later events land in an index that is already built.
                  for (const { q, range } of valid.slice(i % valid.length, (i % valid.length) + 1)) {
                    await expectSameAnswers(service, reference, projectId, range, q);
                  }
                  if (i === restartAfter) {
                    await store.close();
                    ({ store, service } = await openStore());
                  }
                }
                for (const { q, range } of valid)
                  await expectSameAnswers(service, reference, projectId, range, q);
              } finally {
                await store.close();
                await release();
              }
            },
          ),
          { numRuns: backend.runs(60) },
        );
      },
      PROPERTY_TIMEOUT_MS,
    );
  });

  describe(`${backend.name}: returning visitors over whole days and clipped edges`, () => {
    const returning: fc.Arbitrary<TestEvent> = fc
      .record({
        day: fc.integer({ min: 0, max: 6 }),
        ms: fc.integer({ min: 0, max: DAY - 1 }),
        path: fc.constantFrom('/a', '/b', '/a/'),
        ua: fc.constantFrom(...USER_AGENTS.slice(0, 5)),
        visitorId: fc.constantFrom('v1', 'v2', 'v3'),
      })
      .map(({ day, ms, path, ua, visitorId }) => ({
        timestamp: new Date(BASE + day * DAY + ms).toISOString(),
        path,
        userAgent: ua,
        visitorId,
      }));
    const wholeDay = fc.option(
      fc.oneof(
        fc
          .integer({ min: 0, max: 7 })
          .map((d) => ({ text: new Date(BASE + d * DAY).toISOString().slice(0, 10) })),
        fc.constantFrom(...EARLY_BOUNDS.filter((b) => b.text.length === 10)),
      ),
      { nil: null },
    );

    // Few days, so visitors come back across the clipped edges (on L, skip the middle, on R).
    // Times of day anywhere, or on and beside the quarter hours the first-visit tables keep.
    const timeOfDay = fc.oneof(
      fc.integer({ min: 0, max: DAY - 1 }),
      fc
        .tuple(fc.constantFrom(...EDGE_QUARTERS), fc.constantFrom(0, 1, QUARTER - 1, ...NEAR_QUARTER))
        .map(([quarter, ms]) => (quarter * QUARTER + ms + DAY) % DAY),
    );
    const returningDense: fc.Arbitrary<TestEvent> = fc
      .record({
        day: fc.integer({ min: 0, max: 3 }),
        ms: timeOfDay,
        path: fc.constantFrom('/a', '/b'),
        ua: fc.constantFrom(...USER_AGENTS.slice(0, 5)),
        visitorId: fc.constantFrom('v1', 'v2', 'v3'),
      })
      .map(({ day, ms, path, ua, visitorId }) => ({
        timestamp: new Date(BASE + day * DAY + ms).toISOString(),
        path,
        userAgent: ua,
        visitorId,
      }));
    // Edges inside a day (an offset, or any instant): whole days by previous visits, edges raw.
    const clippedBound = fc.option(
      fc.oneof(
        fc.integer({ min: 0, max: 4 }).map((d) => ({ text: isoWithOffset(BASE + d * DAY, '+02:00') })),
        fc.integer({ min: 0, max: 4 }).map((d) => ({ text: isoWithOffset(BASE + d * DAY, '-08:00') })),
        fc.integer({ min: -DAY, max: 5 * DAY }).map((t) => ({ text: isoWithOffset(BASE + t, '+05:30') })),
        // Any quarter hour (a local midnight somewhere, or a time of day), as most ranges are.
        fc.tuple(fc.integer({ min: 0, max: 4 }), fc.constantFrom(...EDGE_QUARTERS)).map(([d, q]) => ({
          text: isoWithOffset(BASE + d * DAY + q * QUARTER, q % 2 === 0 ? '+05:45' : '-03:30'),
        })),
        // Beside those quarter hours, so views fall in the slivers off them.
        fc
          .tuple(
            fc.integer({ min: 0, max: 4 }),
            fc.constantFrom(...EDGE_QUARTERS),
            fc.constantFrom(...NEAR_QUARTER),
          )
          .map(([d, q, ms]) => ({ text: isoWithOffset(BASE + d * DAY + q * QUARTER + ms, '+05:30') })),
        wholeDay.filter((d) => d !== null),
        fc.constantFrom(...EARLY_BOUNDS),
      ),
      { nil: null },
    );

    it('counts views on and beside the quarter hour of a clipped start or end once, across batches and a late event', async () => {
      const places = new RunPlaces(backend);
      onTestFinished(() => places.drop());
      const { location, projectId, release } = await places.next('q');
      const { store, service } = await opener(location)();
      const reference = new ReferenceAnalytics(TEST_RANGES);
      const at = (day: number, hours: number, ms = 0) => new Date(BASE + day * DAY + hours * 3_600_000 + ms);
      // v1: on the start's own quarter (day 0, 22:00: midnight at +02:00) and again inside the last day;
      // v2: just before the start, then on the last day; v3: on the last day at the end's quarter and just before it.
      const views: Array<[string, Date]> = [
        ['v1', at(0, 22)],
        ['v1', at(1, 10)],
        ['v2', at(0, 22, -1)],
        ['v2', at(1, 9)],
        ['v3', at(1, 22)],
        ['v3', at(1, 22, -1)],
        ['v3', at(2, 21, 59 * 60_000)],
        // v4: in the sliver before a start off the quarter hour, and in that start's first quarter.
        ['v4', at(0, 21, 58 * 60_000)],
        ['v4', at(0, 22, 30_000)],
        // v5: day 2, then (a late event, in the last batch) day 0 after the start.
        ['v5', at(2, 5)],
        ['v5', at(0, 23)],
      ];
      const events: TestEvent[] = views.map(([visitorId, time]) => ({
        timestamp: time.toISOString(),
        path: '/a',
        userAgent: USER_AGENTS[0] as string,
        visitorId,
      }));
      // In three batches: day 0, the later days (visitors coming back), then the late event.
      const onDay0 = (e: TestEvent) => e.timestamp < '2025-03-02';
      const late = events.slice(-1);
      const batches = [
        events.slice(0, -1).filter(onDay0),
        events.slice(0, -1).filter((e) => !onDay0(e)),
        late,
      ];
      try {
        for (const batch of batches) {
          await service.ingest(projectId, batch);
          reference.add(batch);
        }
        for (const [from, to] of [
          ['2025-03-02T00:00:00+02:00', '2025-03-03T00:00:00+02:00'],
          ['2025-03-02T00:00:00+02:00', '2025-03-04T00:00:00+02:00'],
          ['2025-03-02T22:00:00Z', '2025-03-04T21:45:00Z'],
          ['2025-03-01T22:15:00Z', '2025-03-03T22:00:00Z'],
          // Off the quarter hours: slivers before the first and after the last quarter hour.
          ['2025-03-01T21:59:59.999Z', '2025-03-03T22:00:00.001Z'],
          ['2025-03-01T21:50:00Z', '2025-03-02T22:07:00Z'],
          ['2025-03-01T12:00:00.001Z', '2025-03-02T21:59:59.999Z'],
          ['2025-03-01T21:55:00Z', '2025-03-02T12:00:00Z'],
        ]) {
          const range = toRange({ from: { text: from as string }, to: { text: to as string } }) as TimeRange;
          const q = {
            measure: 'visitors' as const,
            limit: 5,
            countAiCrawlersAsAi: false,
            verifiedOnly: false,
          };
          await expectSameAnswers(service, reference, projectId, range, q);
        }
      } finally {
        await store.close();
        await release();
      }
    });

    it(
      'counts exactly with late events and restarts (whole days)',
      async () => {
        const places = new RunPlaces(backend);
        onTestFinished(() => places.drop());
        await fc.assert(
          fc.asyncProperty(
            fc.array(fc.array(returning, { minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 4 }),
            fc.array(fc.record({ from: wholeDay, to: wholeDay }), { minLength: 1, maxLength: 4 }),
            fc.integer({ min: -1, max: 3 }),
            (batches, ranges, restartAfter) => ingestAndCompare(places, batches, ranges, restartAfter),
          ),
          { numRuns: backend.runs(80) },
        );
      },
      PROPERTY_TIMEOUT_MS,
    );

    it(
      'counts exactly over ranges with clipped edge days',
      async () => {
        const places = new RunPlaces(backend);
        onTestFinished(() => places.drop());
        await fc.assert(
          fc.asyncProperty(
            fc.array(fc.array(returningDense, { minLength: 1, maxLength: 40 }), {
              minLength: 1,
              maxLength: 4,
            }),
            fc.array(fc.record({ from: clippedBound, to: clippedBound }), { minLength: 1, maxLength: 4 }),
            fc.integer({ min: -1, max: 3 }),
            (batches, ranges, restartAfter) => ingestAndCompare(places, batches, ranges, restartAfter),
          ),
          { numRuns: backend.runs(150) },
        );
      },
      PROPERTY_TIMEOUT_MS,
    );
  });
}

/**
 * One run of the restart properties: ingests the batches in order, after each compares every
 * range with the reference (the selection varying by batch), and restarts the store after batch
 * `restartAfter` (−1: never).
 */
async function ingestAndCompare(
  places: RunPlaces,
  batches: TestEvent[][],
  ranges: Array<{ from: { text: string } | null; to: { text: string } | null }>,
  restartAfter: number,
): Promise<void> {
  const { location, projectId, release } = await places.next('p');
  const openStore = opener(location);
  let { store, service } = await openStore();
  const reference = new ReferenceAnalytics(TEST_RANGES);
  try {
    for (const [i, batch] of batches.entries()) {
      await service.ingest(projectId, batch);
      reference.add(batch);
      for (const range of ranges.map(toRange).filter((r) => r !== null)) {
        const q = {
          measure: 'visitors' as const,
          limit: 2,
          countAiCrawlersAsAi: i % 3 === 2,
          verifiedOnly: i % 2 === 1,
        };
        await expectSameAnswers(service, reference, projectId, range, q);
      }
      if (i === restartAfter) {
        await store.close();
        ({ store, service } = await openStore());
      }
    }
  } finally {
    await store.close();
    await release();
  }
}

async function expectSameAnswers(
  service: AnalyticsService,
  reference: ReferenceAnalytics,
  projectId: string,
  range: TimeRange,
  q: { measure: 'visitors' | 'views'; limit: number; countAiCrawlersAsAi: boolean; verifiedOnly: boolean },
): Promise<void> {
  await service.updateSettings(projectId, { countAiCrawlersAsAi: q.countAiCrawlersAsAi });
  const { verifiedOnly } = q;
  const expected = reference.pages(range, q.measure, q.countAiCrawlersAsAi, verifiedOnly);
  const walked = [];
  let offset = 0;
  for (;;) {
    const page = await service.pages(projectId, q.measure, { range, limit: q.limit, offset, verifiedOnly });
    expect(page.totals).toEqual(expected.totals);
    expect(page.rows.length).toBeLessThanOrEqual(q.limit);
    walked.push(...page.rows);
    expect(page.hasMore).toBe(offset + q.limit < expected.rows.length);
    if (!page.hasMore) break;
    offset += q.limit;
  }
  expect(walked).toEqual(expected.rows);
  for (const interval of ['day', 'hour'] as const) {
    const series = await service.timeSeries(projectId, { range, interval, verifiedOnly });
    expect(series).toEqual(reference.timeSeries(range, interval, q.countAiCrawlersAsAi, verifiedOnly));
  }
  expect(await service.breakdown(projectId, { range, verifiedOnly })).toEqual(
    reference.breakdown(range, undefined, verifiedOnly),
  );
}
