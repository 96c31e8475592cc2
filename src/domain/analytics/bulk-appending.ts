import type { AnalyticsStore, BulkLoader } from './store.ts';

/**
 * The store with `append` sent to `bulkAppend`: the ingestion pipeline (validation,
 * classification, identity) in front of a bulk load, for loading a large set of views; call
 * `finishBulk` on the store afterwards. Everything else goes to the store itself.
 */
export function bulkAppending(store: AnalyticsStore & BulkLoader): AnalyticsStore {
  return {
    append: (projectId, events) => store.bulkAppend(projectId, events),
    pages: (projectId, query) => store.pages(projectId, query),
    timeSeries: (projectId, query) => store.timeSeries(projectId, query),
    breakdown: (projectId, query) => store.breakdown(projectId, query),
    reclassify: (projectId, classifier) => store.reclassify(projectId, classifier),
    deleteProject: (projectId) => store.deleteProject(projectId),
    close: () => store.close(),
  };
}
