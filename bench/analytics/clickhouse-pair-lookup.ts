// What an append group's pair lookup costs ClickHouse, the store's condition against the tuple
// `IN` it replaced: `node bench/analytics/clickhouse-pair-lookup.ts [--rows 18000000] [--rounds 11]`.
//
// Fills the store's `pair_days` (on a ClickHouse server of its own) with `--rows` rows of a
// million visitors, half of them "any page" rows and half on one of 5,000 pages, merged as far as
// OPTIMIZE takes them; then, per round, looks up 16,000 pairs as one append group of 8,000 views
// would (4,000 known visitors and 4,000 new ones, each with "any page" and a page), once with
// each condition, and prints ClickHouse's CPU time per pair (its process's, from /proc), medians
// over the rounds, and whether both found the same rows.

import { parseArgs } from 'node:util';
import { pairLookupCondition } from '../../src/integrations/analytics/clickhouse/append.ts';
import { openClickHouseAnalyticsStore } from '../../src/integrations/analytics/clickhouse/clickhouse-store.ts';
import { connect } from '../../src/integrations/analytics/clickhouse/connection.ts';
import { pairDaysSql, readPairStates } from '../../src/integrations/analytics/clickhouse/pair-states.ts';
import { RowBinaryReader } from '../../src/integrations/analytics/clickhouse/row-binary.ts';
import { processLocks } from '../../src/storage/locks.ts';
import { startClickHouse } from '../../test/helpers/clickhouse-server.ts';
import { cpuMs } from './process-cpu.ts';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '18000000' },
    rounds: { type: 'string', default: '11' },
  },
});
const ROWS = Number(values.rows);
const ROUNDS = Number(values.rounds);
const VISITORS = 1_000_000;
const log = (line: string) => process.stdout.write(`${line}\n`);

const clickhouse = await startClickHouse();
try {
  const database = 'pair_lookup_bench';
  const store = await openClickHouseAnalyticsStore({ url: clickhouse.url, database, locks: processLocks() });
  await store.close();
  const connection = connect({ url: clickhouse.url, database });
  const started = performance.now();
  await connection.longCommand(`INSERT INTO ${connection.db}.pair_days
    SELECT 'p', cityHash64(v), cityHash64(v, 1),
           if(k = 0, '', concat('/docs/page-', toString(cityHash64(n, 2) % 5000))), toInt32(20000 + n % 30), 0, 10, 20
      FROM (SELECT number AS n, number % ${VISITORS} AS v, intDiv(number, ${VISITORS}) % 2 AS k
              FROM system.numbers LIMIT ${ROWS})`);
  await connection.longCommand(`OPTIMIZE TABLE ${connection.db}.pair_days FINAL`);
  const [parts] = await connection.query<{ n: string }>(
    `SELECT count() AS n FROM system.parts WHERE database = '${database}' AND table = 'pair_days' AND active`,
  );
  log(
    `# pair_days lookups: ${ROWS.toLocaleString('en')} rows in ${parts?.n} parts (filled in ${((performance.now() - started) / 1000).toFixed(1)} s), ${ROUNDS} rounds of 16,000 pairs`,
  );

  const conditions = {
    'tuple IN (before 2026-12-02)': `project = 'p' AND (visitor_hi, visitor_lo, page) IN pairs`,
    'visitor_hi set + pair hash (the store)': pairLookupCondition('p'),
  };
  const costs = new Map<string, number[]>(Object.keys(conditions).map((name) => [name, []]));
  let sameAnswers = true;
  for (let round = 0; round < ROUNDS; round++) {
    const visitors = await connection.query<{ hi: string; lo: string; page: string }>(
      `SELECT toString(cityHash64(v)) AS hi, toString(cityHash64(v, 1)) AS lo, concat('/docs/page-', toString(v % 5000)) AS page
        FROM (SELECT if(number < 4000, (number * 7919 + ${round * 104729}) % ${VISITORS}, ${VISITORS} + number + ${round * 10000}) AS v
                FROM system.numbers LIMIT 8000)`,
    );
    const rows = visitors.flatMap((v) => [`${v.hi}\t${v.lo}\t`, `${v.hi}\t${v.lo}\t${v.page}`]);
    const answers: string[] = [];
    for (const [name, where] of Object.entries(conditions)) {
      const before = cpuMs(clickhouse.pid);
      const answer = await connection.queryBinary(pairDaysSql(connection.db, where), {
        name: 'pairs',
        structure: 'hi UInt64, lo UInt64, page String',
        rows,
      });
      costs.get(name)?.push(((cpuMs(clickhouse.pid) - before) * 1000) / rows.length);
      // Rows come in no set order: compare the pairs' states, sorted.
      const states = readPairStates(new RowBinaryReader(answer));
      answers.push(JSON.stringify([...states].map(([pair, days]) => [pair, [...days]]).sort()));
    }
    if (answers[0] !== answers[1]) sameAnswers = false;
  }
  await connection.close();
  const median = (list: number[]) =>
    [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? Number.NaN;
  log('| condition | ClickHouse CPU per pair, median (min–max) |');
  log('| --- | --- |');
  for (const [name, list] of costs)
    log(
      `| ${name} | ${median(list).toFixed(1)} µs (${Math.min(...list).toFixed(1)}–${Math.max(...list).toFixed(1)}) |`,
    );
  log(`same rows found by both: ${sameAnswers ? 'yes' : 'NO'}`);
} finally {
  await clickhouse.stop();
}
