import { categoryFromCode, purposeFromCode } from '../../../domain/analytics/categories.ts';
import {
  decodeScanCursor,
  nextScanCursor,
  type PreparedEvent,
  type ViewScan,
} from '../../../domain/analytics/store.ts';
import type { ClickHouseConnection } from './connection.ts';
import { literal } from './sql-literal.ts';

interface ViewRow {
  ts: string | number;
  event_key: string | number;
  path: string;
  visitor_hi: string | number;
  visitor_lo: string | number;
  category: number;
  purpose: number;
  agent: string;
  classifier_version: number;
  user_agent: string;
  flags: number;
  status: number | null;
  referrer: string | null;
  verified: number;
}

/**
 * A page of the project's views in (time, then every stored column) order: identical views
 * are interchangeable, so skipping the first n of a millisecond is stable across calls.
 */
export async function scanViews(
  connection: ClickHouseConnection,
  projectId: string,
  cursor: string | null,
  limit: number,
): Promise<ViewScan> {
  const from = decodeScanCursor(cursor);
  const after = cursor === null ? '' : ` AND ts >= ${Math.trunc(from.timestamp)}`;
  const rows = await connection.query<ViewRow>(
    `SELECT ts, event_key, path, visitor_hi, visitor_lo, category, purpose, agent, classifier_version,
            user_agent, flags, status, referrer, verified
       FROM ${connection.db}.views
      WHERE project = ${literal(projectId)}${after}
      ORDER BY ts, path, visitor_hi, visitor_lo, event_key, category, purpose, flags, agent, user_agent,
               referrer, status, classifier_version, verified
      LIMIT ${Math.trunc(from.skip)}, ${Math.trunc(limit)}`,
  );
  const views: PreparedEvent[] = rows.map((r) => {
    const visitor = Buffer.alloc(16);
    visitor.writeBigUInt64BE(BigInt(r.visitor_hi), 0);
    visitor.writeBigUInt64BE(BigInt(r.visitor_lo), 8);
    const key = BigInt(r.event_key);
    let eventKey: string | null = null;
    if (key !== 0n) {
      const bytes = Buffer.alloc(8);
      bytes.writeBigUInt64BE(key, 0);
      eventKey = bytes.toString('latin1');
    }
    return {
      eventKey,
      timestamp: Number(r.ts),
      path: r.path,
      visitorKey: visitor,
      category: categoryFromCode(r.category),
      purpose: purposeFromCode(r.purpose),
      agent: r.agent,
      classifierVersion: r.classifier_version,
      userAgent: r.user_agent,
      flags: r.flags,
      status: r.status,
      referrer: r.referrer,
      verified: Number(r.verified) === 1,
    };
  });
  return { views, next: nextScanCursor(from, views, limit) };
}

export async function countProjectViews(
  connection: ClickHouseConnection,
  projectId: string,
): Promise<number> {
  const [row] = await connection.query<{ n: string | number }>(
    `SELECT count() AS n FROM ${connection.db}.views WHERE project = ${literal(projectId)}`,
  );
  return Number(row?.n ?? 0);
}
