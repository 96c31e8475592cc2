// Sums a sampling heap profile (BENCH_SERVER_ALLOC_PROF, see server.ts) by allocating function:
// `node bench/analytics/alloc-top.ts FILE [--top 30]`. Prints each function's share of the
// sampled bytes with its two callers, largest first.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '30' } },
});
const profile = JSON.parse(readFileSync(positionals[0] ?? '', 'utf8')) as { head: ProfileNode };
const name = (node: ProfileNode) =>
  `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').pop()}:${node.callFrame.lineNumber + 1}`;
const bySite = new Map<string, number>();
let total = 0;
const walk = (node: ProfileNode, stack: string[]) => {
  const here = [...stack, name(node)].slice(-3);
  if (node.selfSize > 0) {
    const key = [...here].reverse().join(' ← ');
    bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
  }
  for (const child of node.children) walk(child, here);
};
walk(profile.head, []);
process.stdout.write(`sampled ${(total / 1e6).toFixed(0)} MB allocated in all\n`);
for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
  process.stdout.write(
    `${((bytes / total) * 100).toFixed(1).padStart(5)} %  ${(bytes / 1e6).toFixed(0).padStart(6)} MB  ${site}\n`,
  );
}
