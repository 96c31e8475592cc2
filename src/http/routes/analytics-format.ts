import type { FastifyReply, FastifyRequest } from 'fastify';
import type { QueryIssue } from '../../domain/analytics/query-params.ts';
import type { Breakdown, Counts, PageReport, SeriesPoint } from '../../domain/analytics/store.ts';

/** True when the caller asked for CSV (`Accept: text/csv`) rather than JSON. */
export function wantsCsv(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return /(^|,)\s*text\/csv\b/i.test(accept);
}

/** The API's one error shape for bad query parameters: 400 with each parameter named. */
export function sendQueryIssues(request: FastifyRequest, reply: FastifyReply, issues: QueryIssue[]) {
  return reply.code(400).send({
    error: `Invalid query parameters: ${issues.map((i) => i.message).join('; ')}`,
    details: issues.map((i) => ({ message: i.message })),
    requestId: request.id,
  });
}

export function pagesJson(report: PageReport, key: 'visitors' | 'views') {
  return { totals: report.totals, [key]: report.rows, hasMore: report.hasMore };
}

/** The purpose split's CSV columns, after the seed's (which stay first and unchanged). */
const PURPOSE_COLUMNS = ['ai_assistant', 'ai_search', 'ai_training', 'ai_other'];
const purposes = (c: Counts) => [c.aiAssistant, c.aiSearch, c.aiTraining, c.aiOther];

export function sendPagesCsv(reply: FastifyReply, report: PageReport) {
  const lines = [
    ['path', 'human', 'ai', 'total', ...PURPOSE_COLUMNS],
    ...report.rows.map((r) => [r.path, r.human, r.ai, r.total, ...purposes(r)]),
  ];
  return reply
    .header('x-has-more', String(report.hasMore))
    .header('x-totals', countsHeader(report.totals))
    .type('text/csv; charset=utf-8')
    .send(csv(lines));
}

export function seriesJson(interval: string, points: SeriesPoint[]) {
  return {
    interval,
    points: points.map((p) => ({
      start: new Date(p.start).toISOString(),
      visitors: p.visitors,
      views: p.views,
    })),
  };
}

export function sendSeriesCsv(reply: FastifyReply, points: SeriesPoint[]) {
  const lines: Array<Array<string | number>> = [
    [
      'start',
      'visitors_human',
      'visitors_ai',
      'visitors_total',
      'views_human',
      'views_ai',
      'views_total',
      ...PURPOSE_COLUMNS.map((c) => `visitors_${c}`),
      ...PURPOSE_COLUMNS.map((c) => `views_${c}`),
    ],
  ];
  for (const p of points) {
    lines.push([
      new Date(p.start).toISOString(),
      p.visitors.human,
      p.visitors.ai,
      p.visitors.total,
      p.views.human,
      p.views.ai,
      p.views.total,
      ...purposes(p.visitors),
      ...purposes(p.views),
    ]);
  }
  return reply.type('text/csv; charset=utf-8').send(csv(lines));
}

export function sendBreakdownCsv(reply: FastifyReply, breakdown: Breakdown) {
  const lines: Array<Array<string | number>> = [['kind', 'name', 'category', 'visitors', 'views']];
  for (const c of breakdown.categories) lines.push(['category', c.category, c.category, c.visitors, c.views]);
  for (const a of breakdown.agents) lines.push(['agent', a.agent, a.category, a.visitors, a.views]);
  // Operators span categories: their category cell is empty.
  for (const o of breakdown.operators) lines.push(['operator', o.operator, '', o.visitors, o.views]);
  return reply.type('text/csv; charset=utf-8').send(csv(lines));
}

function countsHeader(counts: Counts): string {
  return `human=${counts.human}, ai=${counts.ai}, total=${counts.total}, aiAssistant=${counts.aiAssistant}, aiSearch=${counts.aiSearch}, aiTraining=${counts.aiTraining}, aiOther=${counts.aiOther}`;
}

/** RFC 4180, and a leading quote on text that a spreadsheet would run as a formula. */
export function csv(lines: Array<Array<string | number>>): string {
  return `${lines.map((cells) => cells.map(csvCell).join(',')).join('\r\n')}\r\n`;
}

function csvCell(value: string | number): string {
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
