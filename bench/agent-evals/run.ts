// Documentation-task evals for the agent on the example site. With a model configured
// (DOCWRIGHT_MODEL and its key, as for the server) it runs every task against that model
// and prints a pass table with tokens and time. Without one it says so and exits 0.
// `--scripted` replays each task's known-good solution through a local OpenAI-compatible
// server instead: it checks the harness and the checks, not a model.
// Usage: npm run bench:agent-evals [-- --scripted] [-- --only <substring>]
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config/config.ts';
import { runEvals } from './harness.ts';
import { TASKS } from './tasks.ts';

const { values } = parseArgs({
  options: { scripted: { type: 'boolean', default: false }, only: { type: 'string' } },
});
const config = loadConfig();
if (!values.scripted && config.model === null) {
  console.log(
    'No model configured: set DOCWRIGHT_MODEL (e.g. anthropic:claude-sonnet-4-5) and the provider key to run the evals against it,\nor pass --scripted to exercise the harness with known-good scripted answers.',
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
  env: process.env,
  tasks,
  onResult: (r) => console.log(`${r.passed ? 'PASS' : 'FAIL'}  ${r.task}${r.detail ? `: ${r.detail}` : ''}`),
});
console.table(
  results.map((r) => ({
    task: r.task,
    result: r.passed ? 'pass' : 'FAIL',
    'tokens in': r.inputTokens,
    'tokens out': r.outputTokens,
    seconds: Number(r.seconds.toFixed(1)),
  })),
);
const passed = results.filter((r) => r.passed).length;
console.log(`${passed}/${results.length} tasks passed`);
