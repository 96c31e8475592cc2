import type { AnalyticsOptions } from '../../../src/domain/analytics/options.ts';
import type { Clock } from '../../../src/domain/clock.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';

export type AnalyticsTestApp = TestApp;

/** The shared test server (test/helpers/app.ts) with analytics settings such as trusted proxies. */
export function startAnalyticsApp(
  options: { analytics?: Partial<AnalyticsOptions>; clock?: Clock } = {},
): Promise<AnalyticsTestApp> {
  return startTestApp({
    ...(options.analytics ? { analytics: options.analytics } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
}
