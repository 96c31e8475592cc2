import { CATEGORY_CODES, PURPOSE_CODES } from '../../../domain/analytics/categories.ts';
import type { Reclassifier, ReclassifyResult } from '../../../domain/analytics/store.ts';
import type { AnalyticsDatabase } from './analytics-database.ts';
import { type Chunk, flagsByte, ViewCursor } from './record.ts';

/**
 * Classifies again, in place, every stored view of the project an older classifier version
 * classified, a page of chunks per short write transaction (appends from other processes
 * interleave). When any view was rewritten, the project's checkpoints are dropped and its
 * generation bumped (see CheckpointStore), so every process rebuilds its index.
 */
export function reclassifyViews(
  db: AnalyticsDatabase,
  projectNo: number,
  classifier: Reclassifier,
): ReclassifyResult & { rewritten: boolean } {
  const userAgents = new Map<number, string>();
  const result = { examined: 0, changed: 0, rewritten: false };
  let after = 0;
  for (;;) {
    const last = db.write(() => {
      const chunks = db.chunks.projectPage(projectNo, after, 64);
      for (const chunk of chunks) {
        let dirty = false;
        for (const v = new ViewCursor(chunk); v.next(); ) {
          if (v.classifierVersion >= classifier.version) continue;
          let userAgent = userAgents.get(v.userAgent);
          if (userAgent === undefined) {
            userAgent = db.userAgents.nameOf(v.userAgent);
            userAgents.set(v.userAgent, userAgent);
          }
          const fetch = v.fetchFlags;
          const { category, purpose, agent } = classifier.classify(userAgent, fetch);
          const code = CATEGORY_CODES[category];
          // The verified bit was decided at ingest from the request's IP, which is not stored: kept.
          const flags = flagsByte(fetch, purpose === null ? 0 : PURPOSE_CODES[purpose], v.verified);
          const agentNo = db.agents.idFor(agent);
          result.examined++;
          if (code !== v.category || flags !== v.flags || agentNo !== v.agent) result.changed++;
          v.reclassify(agentNo, code, flags, classifier.version);
          dirty = true;
        }
        if (dirty) db.chunks.rewrite(chunk.seq, chunk.words);
        result.rewritten ||= dirty;
      }
      return chunks.length === 0 ? null : (chunks[chunks.length - 1] as Chunk).seq;
    });
    if (last === null) break;
    after = last;
  }
  if (result.rewritten) db.write(() => db.checkpoints.invalidate(projectNo));
  return result;
}
