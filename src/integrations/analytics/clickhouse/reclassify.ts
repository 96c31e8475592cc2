import { CATEGORY_CODES, PURPOSE_CODES } from '../../../domain/analytics/categories.ts';
import type { Reclassifier, ReclassifyResult } from '../../../domain/analytics/store.ts';
import type { ClickHouseConnection } from './connection.ts';
import { type RebuildOptions, rebuildVisits } from './rebuild-visits.ts';
import { literal } from './sql-literal.ts';

/**
 * Classifies again the project's views of older classifier versions: the distinct (user
 * agent, flags) pairs are classified here, and one mutation (ALTER TABLE … UPDATE, awaited)
 * writes the new category, purpose, agent and version through `transform` over those pairs.
 * Views appended meanwhile carry the current version already. The `verified` flag stays as
 * it is (the IP it was decided from is not stored). Then the project's first-visit tables are
 * built again from its views.
 */
export async function reclassify(
  connection: ClickHouseConnection,
  projectId: string,
  classifier: Reclassifier,
  rebuild: RebuildOptions = {},
): Promise<ReclassifyResult> {
  const where = `project = ${literal(projectId)} AND classifier_version < ${literal(classifier.version)}`;
  const groups = await connection.query<{
    user_agent: string;
    flags: number;
    category: number;
    purpose: number;
    agent: string;
    n: string;
  }>(
    `SELECT user_agent, flags, category, purpose, agent, count() AS n
      FROM ${connection.db}.views WHERE ${where}
      GROUP BY user_agent, flags, category, purpose, agent`,
  );
  const result: ReclassifyResult = { examined: 0, changed: 0 };
  if (groups.length === 0) return result;
  const keys: string[] = [];
  const categories: number[] = [];
  const purposes: number[] = [];
  const agents: string[] = [];
  const done = new Set<string>();
  for (const g of groups) {
    const flags = Number(g.flags);
    const next = classifier.classify(g.user_agent, flags);
    const category = CATEGORY_CODES[next.category];
    const purpose = next.purpose === null ? 0 : PURPOSE_CODES[next.purpose];
    const n = Number(g.n);
    result.examined += n;
    if (category !== Number(g.category) || purpose !== Number(g.purpose) || next.agent !== g.agent) {
      result.changed += n;
    }
    const key = `${flags}\u0000${g.user_agent}`;
    if (done.has(key)) continue;
    done.add(key);
    keys.push(key);
    categories.push(category);
    purposes.push(purpose);
    agents.push(next.agent);
  }
  const key = `concat(toString(flags), '\\0', user_agent)`;
  const mapped = (values: string, current: string) =>
    `transform(${key}, ${literal(keys)}, ${values}, ${current})`;
  // Codes under 256 make an Array(UInt8) literal, the columns' type (transform wants constants).
  const codes = (values: number[]) => literal(values);
  await connection.command(
    `ALTER TABLE ${connection.db}.views UPDATE
        category = ${mapped(codes(categories), 'category')},
        purpose = ${mapped(codes(purposes), 'purpose')},
        agent = ${mapped(literal(agents), 'agent')},
        classifier_version = ${literal(classifier.version)}
      WHERE ${where}`,
  );
  await connection.awaitMutations('views');
  // New categories and purposes are new classes: the first-visit tables follow the views.
  await rebuildVisits(connection, projectId, rebuild);
  return result;
}
