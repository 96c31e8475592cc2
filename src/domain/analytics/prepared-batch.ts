import { CATEGORIES, type Category, PURPOSES, type Purpose } from './categories.ts';
import { VISITOR_KEY_BYTES } from './identity.ts';
import type { EventRejection } from './ingest.ts';
import type { PreparedColumns, PreparedEvent } from './store.ts';

/**
 * A batch of prepared events as a preparation thread posts it: the columns (see
 * PreparedColumns: typed arrays, moved, not copied, and tables of the distinct strings) and the
 * rejected events. Structured clone of the event objects themselves costs the receiving thread
 * ~2 µs an event, more than preparing them; this costs it ~0.4 µs to decode, or nothing for a
 * store that takes the columns (`AnalyticsStore.appendColumns`), and the strings a batch
 * repeats (user agents, pages, agents) cross once.
 */
export interface PreparedBatch extends PreparedColumns {
  rejected: EventRejection[];
}

/** Per event in `stringRefs`: path, user agent, agent, referrer. */
export const STRING_FIELDS = 4;

/** The batch, and the buffers to move with it (`postMessage(batch, transfer)`). */
export function encodePreparedBatch(
  prepared: readonly PreparedEvent[],
  rejected: EventRejection[],
): { batch: PreparedBatch; transfer: ArrayBuffer[] } {
  const count = prepared.length;
  const timestamps = new Float64Array(count);
  const visitorKeys = new Uint8Array(count * VISITOR_KEY_BYTES);
  const eventKeyLengths = new Int32Array(count);
  const codes = new Uint8Array(count);
  const flags = new Uint8Array(count);
  const classifierVersions = new Uint16Array(count);
  const statuses = new Int16Array(count);
  const stringRefs = new Int32Array(count * STRING_FIELDS);
  const strings: string[] = [];
  const indexOf = new Map<string, number>();
  const ref = (value: string | null): number => {
    if (value === null) return -1;
    let index = indexOf.get(value);
    if (index === undefined) {
      index = strings.length;
      strings.push(value);
      indexOf.set(value, index);
    }
    return index;
  };
  const eventKeys: string[] = [];
  for (let i = 0; i < count; i++) {
    const e = prepared[i] as PreparedEvent;
    if (e.visitorKey.length !== VISITOR_KEY_BYTES) throw new Error('visitor keys are 16 bytes');
    timestamps[i] = e.timestamp;
    visitorKeys.set(e.visitorKey, i * VISITOR_KEY_BYTES);
    if (e.eventKey === null) eventKeyLengths[i] = -1;
    else {
      eventKeyLengths[i] = e.eventKey.length;
      eventKeys.push(e.eventKey);
    }
    codes[i] =
      CATEGORIES.indexOf(e.category) |
      ((e.purpose === null ? 0 : PURPOSES.indexOf(e.purpose) + 1) << 3) |
      (e.verified ? 64 : 0);
    flags[i] = e.flags;
    classifierVersions[i] = e.classifierVersion;
    statuses[i] = e.status ?? -1;
    const at = i * STRING_FIELDS;
    stringRefs[at] = ref(e.path);
    stringRefs[at + 1] = ref(e.userAgent);
    stringRefs[at + 2] = ref(e.agent);
    stringRefs[at + 3] = ref(e.referrer);
  }
  const batch: PreparedBatch = {
    count,
    timestamps,
    visitorKeys,
    eventKeys: eventKeys.join(''),
    eventKeyLengths,
    codes,
    flags,
    classifierVersions,
    statuses,
    strings,
    stringRefs,
    rejected,
  };
  const transfer = [
    timestamps,
    visitorKeys,
    eventKeyLengths,
    codes,
    flags,
    classifierVersions,
    statuses,
    stringRefs,
  ].map((array) => array.buffer as ArrayBuffer);
  return { batch, transfer };
}

/** The events again, as the store takes them. */
export function decodePreparedBatch(batch: PreparedBatch): {
  prepared: PreparedEvent[];
  rejected: EventRejection[];
} {
  const { count, strings, stringRefs } = batch;
  const keys = Buffer.from(batch.visitorKeys.buffer, batch.visitorKeys.byteOffset, batch.visitorKeys.length);
  const prepared = new Array<PreparedEvent>(count);
  let keyAt = 0;
  for (let i = 0; i < count; i++) {
    const keyLength = batch.eventKeyLengths[i] as number;
    let eventKey: string | null = null;
    if (keyLength >= 0) {
      eventKey = batch.eventKeys.slice(keyAt, keyAt + keyLength);
      keyAt += keyLength;
    }
    const code = batch.codes[i] as number;
    const purpose = (code >> 3) & 7;
    const status = batch.statuses[i] as number;
    const at = i * STRING_FIELDS;
    const referrer = stringRefs[at + 3] as number;
    prepared[i] = {
      eventKey,
      timestamp: batch.timestamps[i] as number,
      path: strings[stringRefs[at] as number] as string,
      visitorKey: keys.subarray(i * VISITOR_KEY_BYTES, (i + 1) * VISITOR_KEY_BYTES),
      category: CATEGORIES[code & 7] as Category,
      purpose: purpose === 0 ? null : (PURPOSES[purpose - 1] as Purpose),
      agent: strings[stringRefs[at + 2] as number] as string,
      classifierVersion: batch.classifierVersions[i] as number,
      userAgent: strings[stringRefs[at + 1] as number] as string,
      flags: batch.flags[i] as number,
      status: status === -1 ? null : status,
      referrer: referrer === -1 ? null : (strings[referrer] as string),
      verified: (code & 64) !== 0,
    };
  }
  return { prepared, rejected: batch.rejected };
}
