import type { ReclassifyResult } from '../../domain/analytics/store.ts';
import { withServices } from '../context.ts';
import { print } from '../output.ts';

/** `docwright analytics reclassify --project ID`: apply the current agent list to older views. */
export async function analyticsReclassifyCommand(options: { project: string; json: boolean }): Promise<void> {
  const result = await withServices(options, async (services) => {
    await services.projects.get(options.project); // a clear "not found" before touching the file
    return services.analytics.reclassify(options.project);
  });
  print(options.json, result, render);
}

function render(r: ReclassifyResult): string {
  if (r.examined === 0) return 'Every view is already classified by the current agent list; nothing to do.';
  return `Reclassified ${r.examined.toLocaleString('en')} views with the current agent list: ${r.changed.toLocaleString('en')} changed category or agent.`;
}
