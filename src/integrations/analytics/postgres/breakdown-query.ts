import type pg from 'pg';
import { CATEGORIES, type Category, categoryFromCode } from '../../../domain/analytics/categories.ts';
import type { Breakdown, OperatorOf } from '../../../domain/analytics/store.ts';
import type { Dictionary } from './dictionaries.ts';
import { rawRange, type Span } from './range.ts';

type Queryable = Pick<pg.Pool, 'query'>;

/**
 * Distinct visitors and views per category, and per (agent, category), over raw views; under
 * `verifiedOnly` unverified agents are bots and the operators count verified views only.
 */
export async function breakdown(
  db: Queryable,
  agentNames: Dictionary,
  project: number,
  span: Span | null,
  operatorOf: OperatorOf,
  verifiedOnly: boolean,
): Promise<Breakdown> {
  if (span === null) {
    return {
      categories: CATEGORIES.map((category) => ({ category, visitors: 0, views: 0 })),
      agents: [],
      operators: [],
    };
  }
  const range = rawRange(span.from, span.to, 2);
  // Under verifiedOnly an unverified ai, ai_crawler or search view counts as a bot (4).
  const counted = verifiedOnly
    ? 'case when not v.verified and v.category in (1, 2, 3) then 4 else v.category end'
    : 'v.category';
  const result = await db.query<{ agent: number | null; category: number; visitors: number; views: number }>(
    `select v.agent, v.category, count(distinct v.visitor)::int4 as visitors, count(*)::int4 as views
       from (select v.agent, v.visitor, ${counted} as category
               from analytics_views v where v.project = $1 and ${range.sql}) v
      group by grouping sets ((v.category), (v.agent, v.category))`,
    [project, ...range.values],
  );
  const byCategory = new Map<number, { visitors: number; views: number }>();
  const agentRows = result.rows.filter((r) => {
    if (r.agent === null) byCategory.set(r.category, { visitors: r.visitors, views: r.views });
    return r.agent !== null;
  });
  const names = await agentNames.namesOf(
    db,
    agentRows.map((r) => r.agent as number),
  );
  const categories = CATEGORIES.map((category, code) => ({
    category,
    visitors: byCategory.get(code)?.visitors ?? 0,
    views: byCategory.get(code)?.views ?? 0,
  }));
  const agents = agentRows.map((r) => ({
    agent: names.get(r.agent as number) as string,
    category: categoryFromCode(r.category) as Category,
    visitors: r.visitors,
    views: r.views,
  }));
  agents.sort(
    (a, b) => b.visitors - a.visitors || compareText(a.agent, b.agent) || compareText(a.category, b.category),
  );
  // Operators over the agents seen in the range: distinct visitors across each one's agents.
  const operatorAgents = [...names].filter(([, name]) => operatorOf.has(name));
  const operators: Breakdown['operators'] = [];
  if (operatorAgents.length > 0) {
    const byOperator = await db.query<{ operator: string; visitors: number; views: number }>(
      `select m.operator, count(distinct v.visitor)::int4 as visitors, count(*)::int4 as views
         from analytics_views v
         join unnest($2::int4[], $3::text[]) as m(agent, operator) on m.agent = v.agent
        where v.project = $1 and ${rawRange(span.from, span.to, 4).sql} ${verifiedOnly ? 'and v.verified' : ''}
        group by m.operator`,
      [
        project,
        operatorAgents.map(([id]) => id),
        operatorAgents.map(([, name]) => operatorOf.get(name) as string),
        ...range.values,
      ],
    );
    operators.push(...byOperator.rows);
    operators.sort((a, b) => b.visitors - a.visitors || compareText(a.operator, b.operator));
  }
  return { categories, agents, operators };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
