// Documentation-task evals for the agent on the example site. With a model configured
// (DOCWRIGHT_MODEL and its key, as for the server) it runs every task against that model
// and prints a pass table with tokens and time. Without one it says so and exits 0.
// `--scripted` replays each task's known-good solution through a local OpenAI-compatible
// server instead: it checks the harness and the checks, not a model.
// Usage: [DOCWRIGHT_EVAL_MODEL=provider:model] npm run bench:agent-evals [-- --scripted] [-- --only <substring>]
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config/config.ts';
import { runEvals } from './harness.ts';
import { TASKS } from './tasks.ts';

const { values } = parseArgs({
  options: { scripted: { type: 'boolean', default: false }, only: { type: 'string' } },
});
// DOCWRIGHT_EVAL_MODEL picks the model under evaluation without changing the server's DOCWRIGHT_MODEL.
const { DOCWRIGHT_EVAL_MODEL: evalModel, ...env } = process.env;
if (evalModel) env.DOCWRIGHT_MODEL = evalModel;
const config = loadConfig(env);
if (!values.scripted && config.model === null) {
  console.log(
    'No model configured: set DOCWRIGHT_EVAL_MODEL (or DOCWRIGHT_MODEL), e.g. anthropic:claude-sonnet-4-5, and the provider key to run the evals against it,\nor pass --scripted to exercise the harness with known-good scripted answers.',
  );
  process.exit(0);
}
const tasks = TASKS.filter((t) => !values.only || t.name.includes(values.only));
const mode = values.scripted ? 'scripted' : 'provider';
console.log(
  `Running ${tasks.length} documentation tasks (${mode === 'scripted' ? 'scripted answers' : config.model})…`,
);
const results = await runEvals({
  mode,
  env,
  tasks,
  onResult: (r) => console.log(`${r.passed ? 'PASS' : 'FAIL'}  ${r.task}${r.detail ? `: ${r.detail}` : ''}`),
});
console.table(
  results.map((r) => ({
    task: r.task,
    result: r.passed ? 'pass' : 'FAIL',
    'tokens in': r.inputTokens,
    'tokens out': r.outputTokens,
    'cost (USD)': r.costUsd === null ? 'no price' : r.costUsd.toFixed(4),
    seconds: Number(r.seconds.toFixed(1)),
    plan: r.planned ? 'yes' : '',
    sources: r.sources,
  })),
);
const passed = results.filter((r) => r.passed).length;
const cost = results.reduce((sum, r) => sum + (r.costUsd ?? 0), 0);
console.log(
  `${passed}/${results.length} tasks passed (${Math.round((100 * passed) / Math.max(1, results.length))}%), ` +
    `${results.reduce((s, r) => s + r.inputTokens + r.outputTokens, 0)} tokens, about $${cost.toFixed(4)}` +
    `${results.some((r) => r.costUsd === null) ? ' (some turns unpriced)' : ''}, ` +
    `${results.reduce((s, r) => s + r.seconds, 0).toFixed(0)} s`,
);
