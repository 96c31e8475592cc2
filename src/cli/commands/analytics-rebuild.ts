import type { RebuildResult } from '../../domain/analytics/store.ts';
import { withServices } from '../context.ts';
import { print } from '../output.ts';

/**
 * `docwright analytics rebuild --project ID`: build the project's first-visit tables again from
 * its views (ClickHouse), as after a ClickHouse failure in the middle of an insert.
 */
export async function analyticsRebuildCommand(options: { project: string; json: boolean }): Promise<void> {
  const result = await withServices(options, async (services) => {
    await services.projects.get(options.project); // a clear "not found" before touching the engine
    return services.analytics.rebuild(options.project);
  });
  print(options.json, result, render);
}

function render(r: RebuildResult): string {
  if (!r.rebuilt)
    return 'Nothing to rebuild: this analytics engine keeps no counts apart from the views (the embedded engine builds its index from its own log; PostgreSQL stores views and their visits in one transaction).';
  return `Rebuilt the first-visit tables from the project's ${r.views.toLocaleString('en')} views.`;
}
