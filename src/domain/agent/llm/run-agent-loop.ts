import { setTimeout as sleep } from 'node:timers/promises';
import { type LanguageModel, type ModelMessage, type StepResult, streamText, type ToolSet } from 'ai';
import type { Logger } from 'pino';
import type { ConversationMessage } from '../../jobs/conversation.ts';
import type { AgentMessage, TokenUsage } from '../agent.ts';
import { createFinishTool, FINISH_TOOL } from './finish-tool.ts';
import { historyToModelMessages } from './history.ts';
import { createPlanTool, PLAN_TOOL } from './plan-tool.ts';
import { judgeModelError, type ModelIdentity } from './provider-errors.ts';
import { TurnRecorder } from './turn-recorder.ts';

export interface AgentLoopLimits {
  /** Model calls per turn. */
  maxSteps: number;
  /** Input plus output tokens per turn, summed over its model calls. */
  maxTokens: number;
  /** Wall-clock time per turn. */
  maxDurationMs: number;
}

export interface RetryPolicy {
  /** Retries of one model call after a rate limit, overload or server error. */
  maxRetries: number;
  initialDelayMs: number;
  maxDelayMs: number;
  /** A provider asking for a longer wait than this fails the turn instead. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 4,
  initialDelayMs: 1000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
};

export interface AgentLoopInput {
  model: LanguageModel;
  system: string;
  /** Earlier turns' messages, oldest first. */
  history: ConversationMessage[];
  prompt: string;
  tools: ToolSet;
  limits: AgentLoopLimits;
  signal: AbortSignal;
  retry?: Partial<RetryPolicy>;
  logger?: Logger;
  /** Tool results are stored shortened to this many characters (default 2000). */
  maxRecordedOutputChars?: number;
  /** Called with each message as it is recorded (progress, logging), every plan update included. */
  onMessage?: (message: AgentMessage) => void;
  /** Offer `finish` a `sources` list to narrow what the pull request cites (the turn read sources). */
  finishSources?: boolean;
}

export interface AgentLoopResult {
  status: 'finished' | 'limit' | 'failed';
  summary: string;
  pullRequest: { title: string; body: string } | null;
  /** The sources `finish` named, when it named any. */
  sources?: string[];
  usage: TokenUsage;
  messages: AgentMessage[];
  /** Why the turn stopped early ('limit') or failed. */
  reason?: string;
  /** Which limit ended the turn. */
  limit?: 'steps' | 'tokens' | 'time';
  /** True when `signal` stopped the turn. */
  aborted?: boolean;
  /** Model calls that completed. */
  steps: number;
}

const DEFAULT_RECORDED_OUTPUT_CHARS = 2000;

class TimeLimit extends Error {}

/**
 * Runs one turn of the documentation agent: calls the model, runs the tools it asks for,
 * and repeats until it calls `finish`, stops calling tools, hits a limit, fails or is
 * aborted. Each model call streams (so it works with servers that only stream) and is
 * retried on its own with backoff; limits are checked between calls, and the time limit
 * also interrupts a call in flight. What the agent said and did is recorded as it goes,
 * so a turn that ends early still reports it.
 */
export async function runAgentLoop(input: AgentLoopInput): Promise<AgentLoopResult> {
  for (const name of [FINISH_TOOL, PLAN_TOOL]) {
    if (name in input.tools) throw new Error(`The tool set must not define "${name}": the loop adds it.`);
  }
  const retry: RetryPolicy = { ...DEFAULT_RETRY, ...input.retry };
  const { limits } = input;
  for (const [name, value] of Object.entries(limits)) {
    if (!(typeof value === 'number' && value > 0))
      throw new Error(`Agent limit ${name} must be a positive number.`);
  }
  const identity = identify(input.model);
  const tools: ToolSet = {
    ...input.tools,
    [PLAN_TOOL]: createPlanTool(),
    [FINISH_TOOL]: createFinishTool({ sources: input.finishSources === true }),
  };
  const conversation: ModelMessage[] = [
    ...historyToModelMessages(input.history),
    { role: 'user', content: input.prompt },
  ];
  const recorder = new TurnRecorder(
    input.maxRecordedOutputChars ?? DEFAULT_RECORDED_OUTPUT_CHARS,
    input.onMessage,
  );
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  let steps = 0;
  let toolCalls = 0;
  let warned = false;
  const startedAt = Date.now();

  const deadline = new AbortController();
  // setTimeout fires at once for delays past 2^31-1 ms (about 24 days); no turn needs more.
  const timer = setTimeout(
    () => deadline.abort(new TimeLimit('time limit')),
    Math.min(limits.maxDurationMs, 2 ** 31 - 1),
  );
  const signal = AbortSignal.any([input.signal, deadline.signal]);

  const result = (
    status: AgentLoopResult['status'],
    fields: Partial<AgentLoopResult> = {},
  ): AgentLoopResult => ({
    status,
    summary: '',
    pullRequest: null,
    usage: { ...usage },
    messages: recorder.messages,
    steps,
    ...fields,
  });
  const stopAtLimit = (limit: 'steps' | 'tokens' | 'time'): AgentLoopResult => {
    const why = {
      steps: `the step limit (${limits.maxSteps} model calls) was reached`,
      tokens: `the token limit (${limits.maxTokens} tokens) was reached with ${usage.inputTokens + usage.outputTokens} used`,
      time: `the time limit (${Math.round(limits.maxDurationMs / 1000)} s) was reached`,
    }[limit];
    const reason = `The turn stopped before the agent finished: ${why}, after ${steps} model calls and ${toolCalls} tool calls.`;
    recorder.note(reason);
    const last = recorder.lastAssistantText();
    const summary = last === null ? reason : `${reason}\n\nThe agent's last message: ${last}`;
    return result('limit', { summary, reason, limit });
  };
  const stopAborted = (): AgentLoopResult => {
    const cause = input.signal.reason instanceof Error ? input.signal.reason.message : 'the turn was aborted';
    const reason = `The turn was stopped: ${cause}`;
    return result('failed', { reason, aborted: true });
  };

  try {
    for (;;) {
      if (input.signal.aborted) return stopAborted();
      if (deadline.signal.aborted) return stopAtLimit('time');
      if (steps >= limits.maxSteps) return stopAtLimit('steps');
      if (usage.inputTokens + usage.outputTokens >= limits.maxTokens) return stopAtLimit('tokens');

      const outcome = await callWithRetries({ ...input, tools, conversation, signal, retry, identity });
      if (!outcome.ok) {
        if (input.signal.aborted) return stopAborted();
        if (deadline.signal.aborted) return stopAtLimit('time');
        recorder.note(outcome.reason);
        return result('failed', { reason: outcome.reason });
      }
      const { step } = outcome;
      steps += 1;
      usage.inputTokens += step.usage.inputTokens ?? 0;
      usage.outputTokens += step.usage.outputTokens ?? 0;
      // Cache reads are priced lower; kept only when the provider reports some.
      const cached = step.usage.inputTokenDetails?.cacheReadTokens ?? 0;
      if (cached > 0) usage.cachedInputTokens = (usage.cachedInputTokens ?? 0) + cached;
      conversation.push(...step.response.messages);
      const finish = recorder.recordStep(step);
      toolCalls += step.toolCalls.length;
      input.logger?.debug({ step: steps, toolCalls: step.toolCalls.length, usage }, 'agent step done');

      if (finish !== null) {
        const title = finish.pull_request_title?.trim();
        return result('finished', {
          summary: finish.summary.trim(),
          pullRequest: title
            ? { title, body: finish.pull_request_body?.trim() || finish.summary.trim() }
            : null,
          ...(finish.sources ? { sources: finish.sources } : {}),
        });
      }
      if (step.toolCalls.length === 0) {
        // The model answered without tools and without calling finish: take its text as the summary.
        return result('finished', {
          summary: step.text.trim() || 'The agent ended its turn without a summary.',
        });
      }
      if (!warned) {
        const nearly = nearLimit(limits, { steps, usage, elapsedMs: Date.now() - startedAt });
        if (nearly !== null) {
          // Give the model the chance to validate and finish rather than be cut off mid-task.
          warned = true;
          const text = `${nearly} Wrap up now: make sure what you changed is consistent, run validate, then call finish.`;
          conversation.push({ role: 'user', content: `[Docwright] ${text}` });
          recorder.note(`Asked the agent to wrap up: ${nearly}`);
        }
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Says which limit is close (two model calls, or 90% of the tokens or time left), if any. */
function nearLimit(
  limits: AgentLoopLimits,
  { steps, usage, elapsedMs }: { steps: number; usage: TokenUsage; elapsedMs: number },
): string | null {
  const left = limits.maxSteps - steps;
  if (left > 0 && left <= 2)
    return `Only ${left} model call${left === 1 ? '' : 's'} remain${left === 1 ? 's' : ''} in this turn.`;
  if (usage.inputTokens + usage.outputTokens >= limits.maxTokens * 0.9)
    return 'This turn has used 90% of its token budget.';
  if (elapsedMs >= limits.maxDurationMs * 0.9) return 'This turn has used 90% of its time.';
  return null;
}

type StepOutcome = { ok: true; step: StepResult<ToolSet> } | { ok: false; reason: string };

interface CallInput {
  model: LanguageModel;
  system: string;
  tools: ToolSet;
  conversation: ModelMessage[];
  signal: AbortSignal;
  retry: RetryPolicy;
  identity: ModelIdentity;
  logger?: Logger;
}

/** One model call (and the tools it asks for), retried on transient provider errors. */
async function callWithRetries(input: CallInput): Promise<StepOutcome> {
  for (let attempt = 0; ; attempt++) {
    const outcome = await callOnce(input);
    if (outcome.ok) return outcome;
    if (input.signal.aborted) return { ok: false, reason: 'aborted' };
    const verdict = judgeModelError(outcome.error, input.identity);
    if (verdict.kind === 'fail') return { ok: false, reason: verdict.reason };
    if (outcome.toolsRan) {
      // Tools already changed the working copy; repeating the call could repeat them.
      return {
        ok: false,
        reason: `The model provider failed mid-response after tools ran (${verdict.description}).`,
      };
    }
    if (attempt >= input.retry.maxRetries) {
      return {
        ok: false,
        reason: `The model provider kept failing after ${attempt + 1} attempts (${verdict.description}).`,
      };
    }
    const backoff = Math.min(input.retry.initialDelayMs * 2 ** attempt, input.retry.maxDelayMs);
    if (verdict.retryAfterMs !== undefined && verdict.retryAfterMs > input.retry.maxRetryAfterMs) {
      return {
        ok: false,
        reason: `The model provider is rate limiting and asked to wait ${Math.ceil(verdict.retryAfterMs / 1000)} s (${verdict.description}).`,
      };
    }
    // A little jitter keeps workers that were limited together from retrying together.
    const delay = verdict.retryAfterMs ?? Math.round(backoff * (1 + Math.random() * 0.25));
    input.logger?.warn(
      { attempt: attempt + 1, delayMs: delay, error: verdict.description },
      'model call failed; retrying',
    );
    try {
      await sleep(delay, undefined, { signal: input.signal });
    } catch {
      return { ok: false, reason: 'aborted' };
    }
  }
}

type CallOutcome = { ok: true; step: StepResult<ToolSet> } | { ok: false; error: unknown; toolsRan: boolean };

async function callOnce(input: CallInput): Promise<CallOutcome> {
  let error: unknown;
  let aborted = false;
  let toolsRan = false;
  const response = streamText({
    model: input.model,
    instructions: input.system,
    messages: input.conversation,
    tools: input.tools,
    // Retries are ours: per call, with Retry-After honoured and a bound we choose.
    maxRetries: 0,
    abortSignal: input.signal,
    // Errors arrive as stream parts and are handled below; the default would print them.
    onError: () => {},
  });
  try {
    for await (const part of response.stream) {
      if (part.type === 'error') error ??= part.error;
      else if (part.type === 'abort') aborted = true;
      else if (part.type === 'tool-result' || part.type === 'tool-error') toolsRan = true;
    }
  } catch (thrown) {
    error ??= thrown;
  }
  if (aborted && error === undefined) error = input.signal.reason ?? new Error('aborted');
  if (error !== undefined) return { ok: false, error, toolsRan };
  try {
    return { ok: true, step: await response.finalStep };
  } catch (thrown) {
    return { ok: false, error: thrown, toolsRan };
  }
}

function identify(model: LanguageModel): ModelIdentity {
  if (typeof model === 'string') return { provider: 'gateway', modelId: model };
  return { provider: model.provider, modelId: model.modelId };
}
