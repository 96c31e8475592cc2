// The crawler range check alone: loading the shipped lists (once per process start) and
// `verifies` per view at ingest, for agents with ranges (a BlockList lookup) and without.
// Medians of 15 rounds. Run: node bench/analytics/crawler-ranges.ts
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadCrawlerRanges } from '../../src/app/crawler-ranges.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'dw-bench-ranges-'));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const loads: number[] = [];
for (let i = 0; i < 15; i++) {
  const started = performance.now();
  loadCrawlerRanges(dataDir);
  loads.push(performance.now() - started);
}
console.log(`load the shipped lists: median ${median(loads).toFixed(1)} ms`);

const ranges = loadCrawlerRanges(dataDir);
// A mix like a crawler-heavy log: in and out of the ranges, IPv4 and IPv6, an operator without ranges.
const cases: Array<[string, string, string]> = [];
for (let i = 0; i < 100_000; i++) {
  const octet = i % 250;
  cases.push(
    i % 4 === 0
      ? ['GPTBot', 'OpenAI', `20.171.206.${octet}`]
      : i % 4 === 1
        ? ['Googlebot', 'Google', `203.0.113.${octet}`]
        : i % 4 === 2
          ? ['Googlebot', 'Google', `2001:4860:4801:10::${octet.toString(16)}`]
          : ['Bytespider', 'ByteDance', `198.51.100.${octet}`],
  );
}
const perCall: number[] = [];
let verified = 0;
for (let round = 0; round < 15; round++) {
  verified = 0;
  const started = performance.now();
  for (const [agent, operator, ip] of cases) if (ranges.verifies(agent, operator, ip)) verified++;
  perCall.push(((performance.now() - started) * 1000) / cases.length);
}
console.log(
  `verifies: ${cases.length.toLocaleString('en')} calls per round (${verified.toLocaleString('en')} verified), median ${median(perCall).toFixed(3)} µs per call`,
);
