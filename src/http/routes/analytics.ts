import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AnalyticsService } from '../../domain/analytics/analytics-service.ts';
import { CATEGORIES } from '../../domain/analytics/categories.ts';
import { SALT_ROTATIONS } from '../../domain/analytics/identity.ts';
import {
  DEFAULT_LIMIT,
  MAX_LIMIT,
  parsePageParams,
  parseRangeParams,
  parseSeriesParams,
} from '../../domain/analytics/query-params.ts';
import type { RateLimiter } from '../../domain/rate-limit/rate-limiter.ts';
import type { AdmissionGate } from '../admission-gate.ts';
import type { BodyDeadlines } from '../body-deadline.ts';
import { bodyErrorResponses, errorResponses, ProjectParams } from '../schemas.ts';

// A body's errors, without the jobs' 409 (an archived job): nothing here conflicts.
const { 409: _archivedJob, ...analyticsBodyErrors } = bodyErrorResponses;

import { acceptUnparsedJson, UnparsedJsonBody } from '../unparsed-body.ts';
import {
  pagesJson,
  sendBreakdownCsv,
  sendPagesCsv,
  sendQueryIssues,
  sendSeriesCsv,
  seriesJson,
  wantsCsv,
} from './analytics-format.ts';

export interface AnalyticsRoutesOptions {
  analytics: AnalyticsService;
  /** Limits the exports per project, like the rest of the API. */
  rateLimiter: RateLimiter;
  /** The process's ingestion requests wait here before their bodies are read. */
  ingestGate: AdmissionGate;
  /** An admitted body's deadlines: a stalled one gives its place up to those waiting. */
  bodyDeadlines: BodyDeadlines;
}

const tags = ['Docs analytics'];
const security = [{ bearerAuth: [] }];

// The purpose split: AI views (categories ai and ai_crawler) by what the agent fetches for,
// whatever countAiCrawlersAsAi says.
const purposeCount = (purpose: string, examples: string) =>
  Type.Integer({
    description: `Distinct AI visitors (or views) whose agent's purpose is ${purpose}: ${examples}. Counted among ai and ai_crawler views whatever countAiCrawlersAsAi says.`,
  });
const countFields = {
  human: Type.Integer({ description: 'Distinct human visitors (or views).' }),
  ai: Type.Integer({ description: 'Distinct AI visitors (or views): assistants, agents, Markdown fetches.' }),
  total: Type.Integer({ description: 'Distinct visitors in either: a visitor seen both ways counts once.' }),
  aiAssistant: purposeCount(
    'assistant',
    'fetching for a person now (ChatGPT-User, Claude-User, Perplexity-User)',
  ),
  aiSearch: purposeCount(
    'search',
    'building an AI search index (OAI-SearchBot, Claude-SearchBot, PerplexityBot)',
  ),
  aiTraining: purposeCount('training', 'collecting training data (GPTBot, ClaudeBot, CCBot, Bytespider)'),
  aiOther: purposeCount('other', 'another purpose, or one the operator does not state'),
};

// Exported for the dashboard, whose payload types are these schemas' Static types.
export const Counts = Type.Object(countFields);
export const PageRow = Type.Object({ path: Type.String(), ...countFields });

export const SeriesReport = Type.Object({
  interval: Type.String(),
  points: Type.Array(
    Type.Object({ start: Type.String({ format: 'date-time' }), visitors: Counts, views: Counts }),
  ),
});
export const BreakdownReport = Type.Object({
  categories: Type.Array(
    Type.Object({
      category: Type.Enum([...CATEGORIES]),
      visitors: Type.Integer(),
      views: Type.Integer(),
    }),
  ),
  agents: Type.Array(
    Type.Object({
      agent: Type.String(),
      category: Type.Enum([...CATEGORIES]),
      visitors: Type.Integer(),
      views: Type.Integer(),
    }),
  ),
  operators: Type.Array(
    Type.Object({
      operator: Type.String({ description: 'Who runs the agents (OpenAI, Anthropic, Google, …).' }),
      visitors: Type.Integer({ description: "Distinct visitors across all of the operator's agents." }),
      views: Type.Integer(),
    }),
    {
      description:
        'Every view whose agent has an operator in the agent list (any category: AI agents, search engines, …), grouped by operator. The operator is looked up from the agent list when the export is answered, so list updates and reclassification apply. Ordered by visitors descending, then operator ascending.',
    },
  ),
});

const dateParam = (name: string, bound: string) =>
  Type.Optional(
    Type.String({
      description: `${bound}: YYYY-MM-DD (midnight UTC) or an ISO 8601 date-time with offset. Absent: unbounded.`,
      examples: [name === 'dateFrom' ? '2025-03-01' : '2025-03-21T00:00:00+01:00'],
    }),
  );
const RangeQuery = Type.Object({
  dateFrom: dateParam('dateFrom', 'Inclusive start'),
  dateTo: dateParam('dateTo', 'Exclusive end'),
  verifiedOnly: Type.Optional(
    Type.String({
      description:
        "true: count agents only when verified by their operator's published IP ranges; an ai, ai_crawler or search view that only claims its user agent counts as bot (and, in the breakdown, operators count verified views only). false (default): every view as classified.",
      examples: ['true'],
    }),
  ),
});
const PageQuery = Type.Object({
  ...RangeQuery.properties,
  limit: Type.Optional(
    Type.String({ description: `Rows per page, 1-${MAX_LIMIT} (default ${DEFAULT_LIMIT}).` }),
  ),
  offset: Type.Optional(Type.String({ description: 'Rows to skip (default 0); add limit while hasMore.' })),
});
const SeriesQuery = Type.Object({
  ...RangeQuery.properties,
  interval: Type.Optional(Type.String({ description: 'day (default) or hour: UTC buckets.' })),
});

const csvNote = ' Send `Accept: text/csv` for CSV.';

/** `/v1/analytics/{projectId}/…`: ingestion and the exports. Authentication runs in a hook. */
export const analyticsRoutes: FastifyPluginAsyncTypebox<AnalyticsRoutesOptions> = async (app, options) => {
  const { analytics, rateLimiter, ingestGate, bodyDeadlines } = options;
  const stalled = {
    matters: () => ingestGate.waiting > 0,
    message: `The request body stalled (no byte for ${bodyDeadlines.stallMs / 1000} s) while other ingestion requests waited for its slot; the connection is closed. Send the body at once after the headers.`,
  };

  // Large bodies reach the handler unparsed: a preparation thread parses and prepares them.
  await app.register(async (context) => {
    const body = acceptUnparsedJson(context, (bytes) => analytics.preparesInThreads(bytes));
    context.withTypeProvider<TypeBoxTypeProvider>().post(
      '/v1/analytics/:projectId/events',
      {
        validatorCompiler: body.validatorCompiler,
        // An ingestion key (scope `ingest`) may call this endpoint and nothing else.
        config: { permission: 'ingest', watchesOwnBody: true },
        // Room for a full batch of large events, whatever the API-wide body limit.
        bodyLimit: Math.max(1024 * 1024, analytics.maxBatch * 4096),
        // After authentication (onRequest), before the body is read: a request waiting for its
        // turn holds a socket, not its events. Its place is given back when its answer is sent
        // or its client goes away, whichever comes first. Its body's deadlines start once it is
        // in, so that the wait is not counted against it; a body that stalls while others wait
        // is answered 408, which gives the place to the next.
        preParsing: async (request, reply, payload) => {
          const gone = new AbortController();
          reply.raw.once('close', () => gone.abort());
          const leave = await ingestGate.enter(gone.signal);
          if (gone.signal.aborted) {
            leave();
            return payload;
          }
          gone.signal.addEventListener('abort', leave, { once: true });
          return bodyDeadlines.watch(request, reply, payload, stalled);
        },
        schema: {
          summary: 'Ingest page views',
          description: `Server-side ingestion for docs servers and proxies: up to ${analytics.maxBatch} events per request. Answers 202 once the events are durable, with the counts of accepted and duplicate events (an event \`id\` makes retries idempotent) and, per rejected event, its index and reason. Accepts an admin key or an ingestion key (scope \`ingest\`).`,
          tags,
          security,
          params: ProjectParams,
          body: Type.Object({
            events: Type.Array(
              Type.Unknown({
                description:
                  '{ timestamp (ISO 8601 with offset, or epoch ms), path, userAgent, ip?, visitorId?, accept?, referrer?, status?, id? }; ip or visitorId is required.',
              }),
              { maxItems: analytics.maxBatch },
            ),
          }),
          response: {
            202: Type.Object({
              accepted: Type.Integer(),
              duplicates: Type.Integer(),
              rejected: Type.Array(Type.Object({ index: Type.Integer(), reason: Type.String() })),
            }),
            ...analyticsBodyErrors,
          },
        },
      },
      async (request, reply) => {
        const { projectId } = request.params;
        const received: unknown = request.body;
        if (received instanceof UnparsedJsonBody) {
          const result = await analytics.ingestBody(projectId, received.bytes);
          if (result) return reply.code(202).send(result);
          // Not a plain batch: parsed and validated here, failing as any other body would.
          const { events } = body.parse(received) as { events: unknown[] };
          return reply.code(202).send(await analytics.ingest(projectId, events));
        }
        const result = await analytics.ingest(projectId, request.body.events);
        return reply.code(202).send(result);
      },
    );
  });

  for (const measure of ['visitors', 'views'] as const) {
    app.get(
      `/v1/analytics/:projectId/${measure}`,
      {
        schema: {
          summary: measure === 'visitors' ? 'Unique visitors per page' : 'Views per page',
          description: `Exact distinct ${measure === 'visitors' ? 'visitors' : 'views'} per page, human and AI, over [dateFrom, dateTo). \`totals\` cover the whole range whatever the page; rows are ordered by total descending, then path ascending, so paging with offset += limit while hasMore visits every page exactly once.${csvNote}`,
          tags,
          security,
          params: ProjectParams,
          querystring: PageQuery,
          response: {
            200: Type.Object({ totals: Counts, [measure]: Type.Array(PageRow), hasMore: Type.Boolean() }),
            ...errorResponses,
          },
        },
      },
      async (request, reply) => {
        const parsed = parsePageParams(request.query);
        if (!parsed.ok) return sendQueryIssues(request, reply, parsed.issues);
        const { projectId } = request.params;
        await rateLimiter.hit(`analytics:${projectId}`);
        const report = await analytics.pages(projectId, measure, parsed.value);
        if (wantsCsv(request)) return sendPagesCsv(reply, report);
        return pagesJson(report, measure);
      },
    );
  }

  app.get(
    '/v1/analytics/:projectId/timeseries',
    {
      schema: {
        summary: 'Visitors and views over time',
        description: `Distinct visitors and views per UTC day or hour, human and AI. Buckets at the range edges are clipped to it.${csvNote}`,
        tags,
        security,
        params: ProjectParams,
        querystring: SeriesQuery,
        response: {
          200: SeriesReport,
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const parsed = parseSeriesParams(request.query);
      if (!parsed.ok) return sendQueryIssues(request, reply, parsed.issues);
      const { projectId } = request.params;
      await rateLimiter.hit(`analytics:${projectId}`);
      const points = await analytics.timeSeries(projectId, parsed.value);
      if (wantsCsv(request)) return sendSeriesCsv(reply, points);
      return seriesJson(parsed.value.interval, points);
    },
  );

  app.get(
    '/v1/analytics/:projectId/breakdown',
    {
      schema: {
        summary: 'Visitors and views by category and by agent',
        description: `Every category (human, ai, ai_crawler, search, bot) and every agent seen (ChatGPT, Claude Code, GPTBot, curl…), with distinct visitors and views.${csvNote}`,
        tags,
        security,
        params: ProjectParams,
        querystring: RangeQuery,
        response: {
          200: BreakdownReport,
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const parsed = parseRangeParams(request.query);
      if (!parsed.ok) return sendQueryIssues(request, reply, parsed.issues);
      const { projectId } = request.params;
      await rateLimiter.hit(`analytics:${projectId}`);
      const breakdown = await analytics.breakdown(projectId, parsed.value);
      if (wantsCsv(request)) return sendBreakdownCsv(reply, breakdown);
      return breakdown;
    },
  );

  const PageRules = Type.Object(
    {
      assetExtensions: Type.Array(Type.String({ maxLength: 200 }), {
        maxItems: 200,
        description: 'File extensions of assets (css, js, png…): never page views.',
      }),
      excludePaths: Type.Array(Type.String({ maxLength: 200 }), {
        maxItems: 200,
        description:
          'Paths that are never page views, as glob patterns on the path without its query (/robots.txt, /api/search, /_next/**).',
      }),
      stripHtmlExtension: Type.Boolean({ description: '/guide.html counts as /guide.' }),
      mergeIndexPages: Type.Boolean({ description: '/guide/index.html, /guide/index.md count as /guide.' }),
      pageContentTypes: Type.Array(Type.String({ maxLength: 200 }), {
        maxItems: 200,
        description:
          'When a log records the content type of the response, only these are page views (text/html, text/markdown…).',
      }),
    },
    {
      description:
        'Which requests are page views and which page each one is. A change applies to views ingested after it.',
    },
  );
  const settingsFields = {
    allowedOrigins: Type.Array(Type.String(), {
      description: 'Origins the browser tracker may post from, e.g. https://docs.example.com; "*" for any.',
    }),
    countAiCrawlersAsAi: Type.Boolean({
      description: 'Count AI crawlers (GPTBot, ClaudeBot…) as ai in the exports.',
    }),
    saltRotation: Type.Union([Type.Enum([...SALT_ROTATIONS]), Type.Null()], {
      description:
        "How often this project's anonymous visitor ids reset (daily, weekly, monthly, never); null: the server's DOCWRIGHT_ANALYTICS_SALT_ROTATION. A change applies to views stored from then on: a visitor seen on both sides of it counts twice.",
    }),
  };
  const Settings = Type.Object({ ...settingsFields, pageRules: PageRules });
  const SettingsChange = Type.Object({
    allowedOrigins: Type.Optional(settingsFields.allowedOrigins),
    countAiCrawlersAsAi: Type.Optional(settingsFields.countAiCrawlersAsAi),
    saltRotation: Type.Optional(settingsFields.saltRotation),
    pageRules: Type.Optional(
      Type.Partial(PageRules, { description: 'The rules to change; the others stay.' }),
    ),
  });

  app.get(
    '/v1/analytics/:projectId/settings',
    {
      schema: {
        summary: 'Get analytics settings',
        tags,
        security,
        params: ProjectParams,
        response: { 200: Settings, ...errorResponses },
      },
    },
    (request) => analytics.settings(request.params.projectId),
  );

  app.patch(
    '/v1/analytics/:projectId/settings',
    {
      schema: {
        summary: 'Change analytics settings',
        tags,
        security,
        params: ProjectParams,
        body: SettingsChange,
        response: { 200: Settings, ...analyticsBodyErrors },
      },
    },
    (request) => analytics.updateSettings(request.params.projectId, request.body),
  );
};
