// The classifier alone: how fast `classify` is on user agents it has not seen (every one a
// cache miss: the per-user-agent cache is cleared between rounds) and on a realistic log's mix,
// where a few hundred user agents repeat (cache hits). Also prints the coverage of the public
// lists the agent list is tested against. Run: node bench/analytics/classifier.ts
import crawlers from 'crawler-user-agents';
import topUserAgents from 'top-user-agents';
import * as classifier from '../../src/domain/analytics/classifier.ts';

const { classify } = classifier;
const NO_HINTS = { markdownPath: false, acceptsMarkdown: false, llmsTxt: false };

// The package's types leave out the tags its data has.
const aiExamples = (crawlers as ReadonlyArray<{ instances: string[]; tags?: string[] }>)
  .filter((c) => c.tags?.includes('ai-crawler'))
  .flatMap((c) => c.instances)
  .filter((ua) => ua.trim() !== '');
const botExamples = crawlers.flatMap((c) => c.instances).filter((ua) => ua.trim() !== '');
const distinct = [...new Set([...topUserAgents, ...botExamples])];

// Distinct variants, so that nothing is answered from a cache: the version number differs.
function variants(round: number): string[] {
  return distinct.map((ua) => `${ua} r${round}`);
}

function clearCaches(): void {
  const clear = (classifier as { clearClassifierCaches?: () => void }).clearClassifierCaches;
  clear?.();
}

function time(label: string, rounds: number, run: (round: number) => number): void {
  let best = Number.POSITIVE_INFINITY;
  let calls = 0;
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    calls = run(round);
    best = Math.min(best, performance.now() - started);
  }
  const perCall = (best * 1000) / calls;
  console.log(
    `${label}: ${calls.toLocaleString('en')} calls, best ${best.toFixed(1)} ms, ${perCall.toFixed(2)} µs per call`,
  );
}

// Warm up the JIT and the regular expressions.
for (const ua of variants(-1)) classify(ua, NO_HINTS);

time('uncached (distinct user agents)', 7, (round) => {
  clearCaches();
  const list = variants(round);
  for (const ua of list) classify(ua, NO_HINTS);
  return list.length;
});

// A log's mix: 300 user agents (the top browsers and some bots), 200,000 lines.
const mix = distinct.slice(0, 300);
time('log mix (300 user agents, cached)', 7, () => {
  let n = 0;
  for (let i = 0; i < 200_000; i++) {
    classify(mix[(i * 7919) % mix.length] as string, NO_HINTS);
    n++;
  }
  return n;
});

const ai = aiExamples.filter((ua) => {
  const c = classify(ua, NO_HINTS).category;
  return c === 'ai' || c === 'ai_crawler';
}).length;
const human = topUserAgents.filter((ua) => classify(ua, NO_HINTS).category === 'human').length;
console.log(`crawler-user-agents AI examples counted as AI: ${ai} of ${aiExamples.length}`);
console.log(`top-user-agents counted as human: ${human} of ${topUserAgents.length}`);
