import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent, AgentTurnInput, AgentTurnResult } from '../../src/domain/agent/agent.ts';

/**
 * An agent for tests whose behaviour is spelled out in the prompt, so the same agent works
 * in this process and in worker child processes:
 *   "sleep:MS ..."        succeed after MS milliseconds (stops early, with an error, when aborted)
 *   "hang-once ..."       on attempt 1 wait until aborted or killed; later attempts succeed
 *   "hang ..."            wait until aborted
 *   "fail:REASON"         return a final failure
 *   "throw:MESSAGE"       raise an unexpected error
 *   "pr ..."              succeed with a pull request link and a changed file
 *   anything else         succeed with no changes
 * It reports its first message as progress when the turn starts and the second just before
 * it succeeds, as the documentation agent reports its steps.
 */
export class PromptScriptedAgent implements Agent {
  readonly calls: AgentTurnInput[] = [];
  private readonly executionLog: string | undefined;
  private readonly workerName: string;

  constructor(options: { executionLog?: string; workerName?: string } = {}) {
    this.executionLog = options.executionLog;
    this.workerName = options.workerName ?? 'in-process';
  }

  async runTurn(input: AgentTurnInput): Promise<AgentTurnResult> {
    this.calls.push(input);
    const { prompt, seq, attempt } = input.turn;
    if (this.executionLog) {
      appendFileSync(
        this.executionLog,
        `${JSON.stringify({ job: input.job.id, seq, attempt, worker: this.workerName, at: Date.now() })}\n`,
      );
    }
    const working = { role: 'assistant', text: `Working on turn ${seq}` } as const;
    input.onProgress?.(working);
    const scripted = /^([\w-]+):(.*)$/s.exec(prompt);
    const command = scripted?.[1] ?? prompt.split(/\s/)[0] ?? '';
    const arg = scripted?.[2] ?? '';
    switch (command) {
      case 'sleep':
        await sleep(Number.parseInt(arg, 10), undefined, { signal: input.signal });
        break;
      case 'hang':
        await waitForAbort(input.signal);
        break;
      case 'hang-once':
        if (attempt === 1) await waitForAbort(input.signal);
        break;
      case 'fail':
        return { outcome: 'failed', reason: arg || 'scripted failure', usage: null, messages: [] };
      case 'throw':
        throw new Error(arg || 'scripted error');
    }
    const pr = command === 'pr';
    const read = {
      role: 'tool',
      tool: { name: 'read_file', input: { path: 'index.mdx' }, output: '# Hello' },
    } as const;
    input.onProgress?.(read);
    return {
      outcome: 'succeeded',
      summary: `did: ${prompt}`,
      changedFiles: pr ? ['docs/page.mdx'] : [],
      prLink: pr ? `https://example.com/pr/${input.job.id}` : null,
      usage: { inputTokens: 10 * seq, outputTokens: seq },
      messages: [working, read],
    };
  }
}

function waitForAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
