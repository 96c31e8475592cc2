import { categoryFromCode, purposeFromCode } from '../../../domain/analytics/categories.ts';
import {
  decodeScanCursor,
  nextScanCursor,
  type PreparedEvent,
  type ViewScan,
} from '../../../domain/analytics/store.ts';
import type { AnalyticsDatabase } from './analytics-database.ts';
import { purposeCodeOf, ViewCursor, verifiedOf } from './record.ts';

const DAY_MS = 86_400_000;

/** A stored view's numbers, as the sort compares them. */
type Raw = [
  ms: number,
  path: number,
  visitor: number,
  keyLo: number,
  keyHi: number,
  category: number,
  flags: number,
  status: number,
  agent: number,
  userAgent: number,
  referrer: number,
  classifier: number,
];

function compare(a: Raw, b: Raw): number {
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * A page of the project's views in (time, then every stored number) order: a day's chunks are
 * read and sorted (chunks are in append order), identical views are interchangeable, so
 * skipping the first n of a millisecond is stable across calls.
 */
export function scanViews(
  db: AnalyticsDatabase,
  projectNo: number,
  cursor: string | null,
  limit: number,
): ViewScan {
  const from = decodeScanCursor(cursor);
  const firstDay = cursor === null ? -(2 ** 31) : Math.floor(from.timestamp / DAY_MS);
  const upTo = db.chunks.maxSeq();
  const picked: Array<{ day: number; raw: Raw }> = [];
  for (const day of [...db.chunks.daysFrom(projectNo, firstDay)]) {
    const raws: Raw[] = [];
    for (const chunk of db.chunks.day(projectNo, day, upTo)) {
      for (const v = new ViewCursor(chunk); v.next(); ) {
        raws.push([
          v.msOfDay,
          v.path,
          v.visitor,
          v.keyLo,
          v.keyHi,
          v.category,
          v.flags,
          v.status,
          v.agent,
          v.userAgent,
          v.referrer,
          v.classifierVersion,
        ]);
      }
    }
    raws.sort(compare);
    let skip = from.skip;
    for (const raw of raws) {
      const timestamp = day * DAY_MS + raw[0];
      if (cursor !== null && timestamp < from.timestamp) continue;
      if (cursor !== null && timestamp === from.timestamp && skip > 0) {
        skip--;
        continue;
      }
      picked.push({ day, raw });
      if (picked.length === limit) break;
    }
    if (picked.length === limit) break;
  }
  const visitors = db.visitors.keysOf(picked.map((p) => p.raw[2]));
  const views: PreparedEvent[] = picked.map(({ day, raw }) => {
    const [ms, path, visitor, keyLo, keyHi, category, flags, status, agent, userAgent, referrer, classifier] =
      raw;
    let eventKey: string | null = null;
    if (keyLo !== 0 || keyHi !== 0) {
      const bytes = Buffer.alloc(8);
      bytes.writeUInt32LE(keyLo, 0);
      bytes.writeUInt32LE(keyHi, 4);
      eventKey = bytes.toString('latin1');
    }
    return {
      eventKey,
      timestamp: day * DAY_MS + ms,
      path: db.paths.nameOf(path),
      visitorKey: visitors.get(visitor) as Buffer,
      category: categoryFromCode(category),
      purpose: purposeFromCode(purposeCodeOf(flags)),
      agent: db.agents.nameOf(agent),
      classifierVersion: classifier,
      userAgent: db.userAgents.nameOf(userAgent),
      flags: flags & 7,
      status: status === 0 ? null : status,
      referrer: referrer === 0 ? null : db.referrers.nameOf(referrer),
      verified: verifiedOf(flags),
    };
  });
  return { views, next: nextScanCursor(from, views, limit) };
}

/** How many views the project has stored. */
export function countProjectViews(db: AnalyticsDatabase, projectNo: number): number {
  return db.sqlite
    .prepare('select coalesce(sum(count), 0) from chunks where project = ?')
    .pluck()
    .get(projectNo) as number;
}
