import { buildDashboard } from '../../../scripts/build-dashboard.ts';

/** Integration tests serve the built dashboard: build it first when its sources changed. */
export async function setup(): Promise<void> {
  await buildDashboard({ ifStale: true });
}
