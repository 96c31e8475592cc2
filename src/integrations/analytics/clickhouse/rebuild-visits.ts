import { CLASS_BIT_SQL, LATEST, NEVER, SIDE_MASKS } from './classes.ts';
import type { ClickHouseConnection } from './connection.ts';
import { literal } from './sql-literal.ts';

/**
 * Builds the first-visit tables (`visits`, `visit_counts`, `visit_days`; see visit-deltas.ts) of a project,
 * or of every project (null), again from its stored views: after the step that created them,
 * and after a reclassification changed the views' classes. The old rows are deleted first, so
 * running it again gives the same tables. Appends to the project must wait meanwhile (the store
 * awaits its own; see docs/analytics.md).
 */
export async function rebuildVisits(
  connection: ClickHouseConnection,
  projectId: string | null,
): Promise<void> {
  const where = projectId === null ? '1' : `project = ${literal(projectId)}`;
  for (const table of ['visits', 'visit_counts', 'visit_days']) {
    await connection.command(`ALTER TABLE ${connection.db}.${table} DELETE WHERE ${where}`);
    await connection.awaitMutations(table);
  }
  for (const statement of rebuildVisitsSql(connection.db, where)) await connection.command(statement);
}

/** The inserts of a rebuild, for the views matching `where`. */
function rebuildVisitsSql(db: string, where: string): string[] {
  const visits = `INSERT INTO ${db}.visits (project, visitor_hi, visitor_lo, page, day, mask)
    SELECT project, visitor_hi, visitor_lo, page, day, groupBitOr(bit) FROM (
      SELECT project, visitor_hi, visitor_lo, day, ${CLASS_BIT_SQL} AS bit, [path, ''] AS pages
        FROM ${db}.views WHERE ${where} AND bit != 0
    ) ARRAY JOIN pages AS page
    GROUP BY project, visitor_hi, visitor_lo, page, day`;
  // Per side: each (page, visitor)'s sorted days of that side, each day with the one before it.
  const counts = SIDE_MASKS.map(
    (mask, side) => `INSERT INTO ${db}.visit_counts (project, side, day, page, prev, n)
    SELECT project, ${literal(side)}, day, page, prev, count() FROM (
      SELECT project, page, visitor_hi, visitor_lo, arraySort(groupArray(day)) AS days FROM (
        SELECT project, page, visitor_hi, visitor_lo, day FROM ${db}.visits WHERE ${where}
          GROUP BY project, page, visitor_hi, visitor_lo, day
          HAVING bitAnd(groupBitOr(mask), ${literal(mask)}) != 0
      ) GROUP BY project, page, visitor_hi, visitor_lo
    ) ARRAY JOIN days AS day, arrayPushFront(arrayPopBack(days), ${literal(NEVER)}) AS prev
    GROUP BY project, day, page, prev`,
  );
  // Per side: each (page, visitor)'s days of that side with the one before and after, as rows
  // whose arrays hold only that side (the others NEVER / LATEST: max and min ignore them).
  const sides = SIDE_MASKS.length;
  const days = SIDE_MASKS.map(
    (
      mask,
      side,
    ) => `INSERT INTO ${db}.visit_days (project, day, page, visitor_hi, visitor_lo, mask, prevs, nexts)
    SELECT project, day, page, visitor_hi, visitor_lo, m,
        arrayMap(i -> if(i = ${side}, prev, ${literal(NEVER)}), range(${sides})),
        arrayMap(i -> if(i = ${side}, next, ${literal(LATEST)}), range(${sides}))
    FROM (
      SELECT project, page, visitor_hi, visitor_lo, arraySort(groupArray((day, m))) AS visits,
          arrayMap(v -> v.1, visits) AS days
      FROM (
        SELECT project, page, visitor_hi, visitor_lo, day, groupBitOr(mask) AS m FROM ${db}.visits WHERE ${where}
          GROUP BY project, page, visitor_hi, visitor_lo, day
          HAVING bitAnd(m, ${literal(mask)}) != 0
      ) GROUP BY project, page, visitor_hi, visitor_lo
    ) ARRAY JOIN days AS day, arrayMap(v -> v.2, visits) AS m,
        arrayPushFront(arrayPopBack(days), ${literal(NEVER)}) AS prev,
        arrayPushBack(arrayPopFront(days), ${literal(LATEST)}) AS next`,
  );
  return [visits, ...counts, ...days];
}
