import { describe, expect, it } from 'vitest';
import { runEvals } from '../../bench/agent-evals/harness.ts';
import { RESEARCH_TASKS } from '../../bench/agent-evals/research-tasks.ts';
import { TASKS } from '../../bench/agent-evals/tasks.ts';
import { createTestDatabase, testBackend } from '../helpers/storage.ts';

// Keeps bench/agent-evals working without a provider: every task's known-good solution,
// replayed by the scripted model server, must pass its check through the real service.
describe(`agent evals harness (scripted answers) on ${testBackend}`, () => {
  it('runs at least ten tasks and every known-good solution passes its check', async () => {
    expect(TASKS.length).toBeGreaterThanOrEqual(10);
    const database = createTestDatabase();
    try {
      const { DOCWRIGHT_DATA_DIR: _ignored, ...databaseEnv } = database.env;
      const results = await runEvals({ mode: 'scripted', env: databaseEnv });
      expect(results.filter((r) => !r.passed)).toEqual([]);
      expect(results.every((r) => r.inputTokens > 0)).toBe(true);
      // The research tasks' plumbing: what they read is their sources, and a plan was shown.
      const research = results.filter((r) => RESEARCH_TASKS.some((t) => t.name === r.task));
      expect(research).toHaveLength(4);
      expect(research.every((r) => r.sources > 0)).toBe(true);
      expect(results.find((r) => r.task === 'document a flag whose default is only in code')?.planned).toBe(
        true,
      );
    } finally {
      await database.drop();
    }
  }, 120_000);

  it('a research task fails when the fact was not read in the code, however right the answer', async () => {
    const task = RESEARCH_TASKS.find((t) => t.name.startsWith('answer a question'));
    if (!task) throw new Error('task missing');
    const guessed = {
      ...task,
      script: [{ toolCalls: [{ name: 'finish', arguments: { summary: 'It returns 25 items.' } }] }],
    };
    const database = createTestDatabase();
    try {
      const { DOCWRIGHT_DATA_DIR: _ignored, ...databaseEnv } = database.env;
      const [result] = await runEvals({ mode: 'scripted', env: databaseEnv, tasks: [guessed] });
      expect(result).toMatchObject({
        passed: false,
        detail: "the turn's sources do not include api:src/pagination.ts",
      });
    } finally {
      await database.drop();
    }
  }, 60_000);

  it('a check fails when the work is not done', async () => {
    const task = TASKS.find((t) => t.name === 'fix a broken link');
    if (!task) throw new Error('task missing');
    // The same task, but the model only answers: the broken link stays.
    const lazy = {
      ...task,
      script: [{ toolCalls: [{ name: 'finish', arguments: { summary: 'Looks fine.' } }] }],
    };
    const database = createTestDatabase();
    try {
      const { DOCWRIGHT_DATA_DIR: _ignored, ...databaseEnv } = database.env;
      const [result] = await runEvals({ mode: 'scripted', env: databaseEnv, tasks: [lazy] });
      expect(result?.passed).toBe(false);
      expect(result?.detail).toMatch(/authentication|broken/);
    } finally {
      await database.drop();
    }
  }, 60_000);
});
