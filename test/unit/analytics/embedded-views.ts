// What the embedded store's own tests build: prepared views, a visitors query over a range,
// and a store on a file with a fixed clock.
import type { PageQuery, PreparedEvent } from '../../../src/domain/analytics/store.ts';
import { EmbeddedAnalyticsStore } from '../../../src/integrations/analytics/embedded/embedded-store.ts';

/** A view as the ingestion pipeline hands it to the store (an `ai` view is ChatGPT-User's, an assistant). */
export function preparedView(
  visitorKey: Buffer,
  timestamp: number,
  path: string,
  category: 'human' | 'ai',
): PreparedEvent {
  return {
    eventKey: null,
    timestamp,
    path,
    visitorKey,
    category,
    purpose: category === 'ai' ? 'assistant' : null,
    agent: category === 'ai' ? 'ChatGPT-User' : 'Chrome',
    classifierVersion: 1,
    userAgent: 'test',
    flags: 0,
    status: 200,
    referrer: null,
    verified: false,
  };
}

/** Distinct visitors per page over [from, to), the default selection. */
export function visitorsOver(from: number, to: number): PageQuery {
  return {
    range: { from, to },
    measure: 'visitors',
    limit: 100,
    offset: 0,
    countAiCrawlersAsAi: false,
    verifiedOnly: false,
  };
}

export function openEmbeddedStore(file: string, now: Date): EmbeddedAnalyticsStore {
  return new EmbeddedAnalyticsStore({
    file,
    synchronous: 'normal',
    checkpointIntervalMs: 0,
    clock: () => now,
  });
}
