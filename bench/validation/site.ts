// Validates a documentation repository on disk and prints what it found and how long it took
// (npm run bench:validation-site -- <dir> [--runs N] [--findings] [--store DIR] [--json]).
// The first run is cold: this process has loaded the validator but parsed nothing yet; the
// others reuse its parses. --store keeps parses in DIR as the server does (<data dir>/
// validation-parses): a second process given the same DIR reads them back. --json prints one
// line for bench/validation/run.ts.
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pino } from 'pino';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: '3' },
    findings: { type: 'boolean', default: false },
    store: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const dir = positionals[0];
if (dir === undefined) {
  console.error('usage: node bench/validation/site.ts <dir> [--runs N] [--findings] [--store DIR] [--json]');
  process.exit(2);
}
const loadStarted = performance.now();
const { checkDocumentation } = await import('../../src/domain/agent/tools/index.ts');
const { storeWritten } = await import('../../src/domain/agent/tools/validation/parse-cache.ts');
const { setParseStore } = await import('../../src/domain/agent/tools/validation/parse-store.ts');
const { FileParseStore } = await import('../../src/integrations/parse-store/file-parse-store.ts');
const load = performance.now() - loadStarted;
if (values.store) setParseStore(new FileParseStore(values.store, pino({ level: 'silent' })));
const times: number[] = [];
let report: Awaited<ReturnType<typeof checkDocumentation>> | undefined;
for (let i = 0; i < Number(values.runs); i++) {
  const started = performance.now();
  report = await checkDocumentation(dir);
  times.push(performance.now() - started);
}
await storeWritten();
if (report === undefined) process.exit(0);
if (values.findings) {
  for (const f of report.findings)
    console.log(`${f.file}${f.line ? `:${f.line}` : ''} ${f.rule} ${f.message}`);
}
const [cold, ...warm] = times;
const median = [...warm].sort((a, b) => a - b)[Math.floor(warm.length / 2)];
if (values.json) {
  const summary = {
    pages: report.pagesChecked,
    findings: report.findings.length,
    loadMs: load,
    coldMs: cold,
  };
  console.log(JSON.stringify({ ...summary, warmMs: median ?? null }));
} else {
  const warmText = median === undefined ? '' : `, warm ${median.toFixed(0)} ms`;
  console.log(
    `${dir}: ${report.pagesChecked} pages, ${report.findings.length} findings; load ${load.toFixed(0)} ms, cold ${cold?.toFixed(0)} ms${warmText}`,
  );
}
