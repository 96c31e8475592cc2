import type { PreparedEvent } from '../../../domain/analytics/store.ts';
import type { RowBinaryWriter } from './row-binary.ts';
import {
  type CountDelta,
  FIRST_VISITS,
  FROM_EDGES,
  type PairDayRow,
  pairPage,
  pairVisitor,
  TO_EDGES,
} from './visit-deltas.ts';

/**
 * The columns of `appends` every insert writes, in this order (RowBinary, row-binary.ts): a
 * view (kind 0), a pair_days row (kind 1), or a day_counts delta (kinds 2, 3, 4: its kind + 2); each kind leaves the others' columns at their zero values.
 */
export const APPENDS_COLUMNS =
  'kind, project, day, ts, event_key, path, visitor_hi, visitor_lo, category, purpose, agent, ' +
  'classifier_version, user_agent, flags, status, referrer, verified, cls, first, last, sides, a, b, n';

/** The kind of a count delta's row in `appends`, by its table (visit-deltas.ts). */
/** A day_counts row's kind, by CountKind: the kind of its appends row too. */
export const COUNT_KIND = { [FIRST_VISITS]: 2, [FROM_EDGES]: 3, [TO_EDGES]: 4 } as const;

/** kind 1: a pair_days row. */
export function writePairDay(out: RowBinaryWriter, project: string, r: PairDayRow): void {
  out.uint8(1);
  out.string(project);
  out.int32(r.day);
  out.zeros(16); // ts, event_key
  out.string(pairPage(r.pair));
  const visitor = pairVisitor(r.pair);
  out.uint64FromLatin1(visitor, 0);
  out.uint64FromLatin1(visitor, 8);
  writeEmptyViewColumns(out);
  out.uint8(r.cls);
  out.uint8(r.first);
  out.uint8(r.last);
  writeEmptyCountColumns(out);
}

/** kinds 2–4: a day_counts delta (first visits, start edges, end edges). */
export function writeCountDelta(out: RowBinaryWriter, project: string, c: CountDelta): void {
  out.uint8(COUNT_KIND[c.kind]);
  out.string(project);
  out.int32(c.day);
  out.zeros(16); // ts, event_key
  out.string(c.page);
  out.zeros(16); // visitor_hi, visitor_lo
  writeEmptyViewColumns(out);
  out.zeros(3); // cls, first, last
  out.uint32(c.sides);
  out.int32(c.a);
  out.int32(c.b);
  out.int64(c.n);
}

/** kind 0: a view, with its event key's bytes (or 0). */
export function writeView(
  out: RowBinaryWriter,
  projectId: string,
  e: PreparedEvent,
  day: number,
  key: string | null,
  path: string,
  category: number,
  purpose: number,
): void {
  out.uint8(0);
  out.string(projectId);
  out.int32(day);
  out.int64(e.timestamp);
  if (key === null) out.int64(0);
  else out.uint64FromLatin1(key, 0);
  out.string(path);
  out.uint64FromBytes(e.visitorKey, 0);
  out.uint64FromBytes(e.visitorKey, 8);
  out.uint8(category);
  out.uint8(purpose);
  out.string(e.agent);
  out.uint32(e.classifierVersion);
  out.string(e.userAgent);
  out.uint8(e.flags);
  out.nullableUInt16(e.status);
  out.nullableString(e.referrer);
  out.uint8(e.verified ? 1 : 0);
  out.zeros(3); // cls, first, last
  writeEmptyCountColumns(out);
}

/** category … verified of a row that is not a view. */
function writeEmptyViewColumns(out: RowBinaryWriter): void {
  // category, purpose, agent '' (its length), classifier_version, user_agent '', flags
  out.zeros(9);
  out.nullableUInt16(null);
  out.nullableString(null);
  out.uint8(0); // verified
}

/** sides … n of a row that is not a count delta. */
function writeEmptyCountColumns(out: RowBinaryWriter): void {
  out.zeros(20); // sides, a, b, n
}
