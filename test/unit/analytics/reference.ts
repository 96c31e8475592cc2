import { acceptsMarkdown, classify } from '../../../src/domain/analytics/classifier.ts';
import { normalisePath } from '../../../src/domain/analytics/paths.ts';
import type { Counts, PageRow, TimeRange } from '../../../src/domain/analytics/store.ts';
import { parseDateTime } from '../../../src/domain/analytics/timestamps.ts';

/** A view as the tests generate it (always valid). */
export interface TestEvent {
  timestamp: string;
  path: string;
  userAgent: string;
  ip?: string;
  visitorId?: string;
  accept?: string;
  id?: string;
}

interface Row {
  ts: number;
  path: string;
  visitor: string;
  category: string;
}

/**
 * The brute-force answer: keep every stored view in a list and count distinct visitor strings
 * with Sets. Same contract as the store: first event per (id, event day) wins, daily salts.
 */
export class ReferenceAnalytics {
  private readonly rows: Row[] = [];
  private readonly ids = new Set<string>();

  add(events: readonly TestEvent[]): { accepted: number; duplicates: number } {
    let accepted = 0;
    let duplicates = 0;
    for (const e of events) {
      const ts = parseDateTime(e.timestamp);
      const page = normalisePath(e.path);
      if (ts === null || page === null)
        throw new Error(`test generated an invalid event ${JSON.stringify(e)}`);
      // An id is unique within the UTC day of its event: a retry re-sends the same event.
      if (e.id !== undefined) {
        const key = `${Math.floor(ts / 86_400_000)}|${e.id}`;
        if (this.ids.has(key)) {
          duplicates++;
          continue;
        }
        this.ids.add(key);
      }
      const { category } = classify(e.userAgent, {
        markdownPath: page.markdownPath,
        acceptsMarkdown: acceptsMarkdown(e.accept),
        llmsTxt: page.llmsTxt,
      });
      const day = new Date(ts).toISOString().slice(0, 10);
      const visitor = e.visitorId !== undefined ? `id:${e.visitorId}` : `${day}|${e.ip}|${e.userAgent}`;
      this.rows.push({ ts, path: page.path, visitor, category });
      accepted++;
    }
    return { accepted, duplicates };
  }

  pages(
    range: TimeRange,
    measure: 'visitors' | 'views',
    countAiCrawlersAsAi: boolean,
  ): { totals: Counts; rows: PageRow[] } {
    const inRange = this.rows.filter(
      (r) => (range.from === null || r.ts >= range.from) && (range.to === null || r.ts < range.to),
    );
    const side = (r: Row): 'human' | 'ai' | null => {
      if (r.category === 'human') return 'human';
      if (r.category === 'ai' || (countAiCrawlersAsAi && r.category === 'ai_crawler')) return 'ai';
      return null;
    };
    const count = (rows: Row[]): Counts => {
      const human = rows.filter((r) => side(r) === 'human');
      const ai = rows.filter((r) => side(r) === 'ai');
      if (measure === 'views') return { human: human.length, ai: ai.length, total: human.length + ai.length };
      return {
        human: new Set(human.map((r) => r.visitor)).size,
        ai: new Set(ai.map((r) => r.visitor)).size,
        total: new Set([...human, ...ai].map((r) => r.visitor)).size,
      };
    };
    const paths = [...new Set(inRange.map((r) => r.path))];
    const rows = paths
      .map((path) => ({ path, ...count(inRange.filter((r) => r.path === path)) }))
      .filter((r) => r.total > 0)
      .sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { totals: count(inRange), rows };
  }
}
