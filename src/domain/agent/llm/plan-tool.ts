import { jsonSchema, type Tool, tool } from 'ai';
import {
  MAX_PLAN_ITEMS,
  MAX_PLAN_TITLE,
  PLAN_STATUSES,
  type Plan,
  type PlanItem,
  type PlanStatus,
} from '../../jobs/plan.ts';

export const PLAN_TOOL = 'update_plan';

export type PlanCheck = { ok: true; plan: Plan } | { ok: false; problem: string };

/**
 * The tool that shows the agent's plan to the people watching the job: the whole checklist
 * each time. It touches no file, so it needs no working copy; the loop adds it, and records
 * each successful call as a `plan` message. A malformed call comes back as an `Error: …`
 * result the model can correct.
 */
export function createPlanTool(): Tool<unknown, string> {
  return tool({
    description:
      'Show the person who asked your plan for this turn as a checklist they watch live. Send the whole list each time ' +
      '(it replaces the last one): each step a short title and its status, pending, in_progress or done, with at most ' +
      'one step in_progress. Set it before you start work that has several steps, and update it as each step is done.',
    inputSchema: jsonSchema<unknown>({
      type: 'object',
      properties: {
        items: {
          type: 'array',
          minItems: 1,
          maxItems: MAX_PLAN_ITEMS,
          description: 'Every step of the plan, in order.',
          items: {
            type: 'object',
            properties: {
              title: {
                type: 'string',
                minLength: 1,
                maxLength: MAX_PLAN_TITLE,
                description: 'What the step does, in a few words.',
              },
              status: { type: 'string', enum: [...PLAN_STATUSES] },
            },
            required: ['title', 'status'],
            additionalProperties: false,
          },
        },
      },
      required: ['items'],
      additionalProperties: false,
    }),
    execute: async (input) => {
      const checked = checkPlanInput(input);
      return checked.ok ? planUpdatedText(checked.plan) : `Error: ${checked.problem}`;
    },
  });
}

/** The result the model reads after a plan update (also replayed for earlier turns' plans). */
export function planUpdatedText(plan: Plan): string {
  const done = plan.items.filter((item) => item.status === 'done').length;
  const current = plan.items.find((item) => item.status === 'in_progress');
  return `Plan updated: ${done} of ${plan.items.length} done${current ? `; in progress: ${current.title}` : ''}.`;
}

/**
 * Checks update_plan's arguments (the SDK does not check input against a plain JSON schema)
 * and gives the plan with its titles on one line, trimmed; or what is wrong, in words the model
 * can act on.
 */
export function checkPlanInput(input: unknown): PlanCheck {
  if (!isObject(input)) return fail('update_plan takes an object: {"items": [{"title": …, "status": …}, …]}');
  const unknown = Object.keys(input).filter((key) => key !== 'items');
  if (unknown.length > 0) return fail(`unknown argument ${quote(unknown[0])}: update_plan takes only items`);
  const { items } = input;
  if (!Array.isArray(items)) return fail(`items must be a list of 1 to ${MAX_PLAN_ITEMS} steps`);
  if (items.length === 0) return fail('items is empty: give at least one step');
  if (items.length > MAX_PLAN_ITEMS) {
    return fail(`items has ${items.length} steps; a plan has at most ${MAX_PLAN_ITEMS}: group them`);
  }
  const plan: PlanItem[] = [];
  let inProgress: number | null = null;
  for (const [index, item] of items.entries()) {
    const at = `items[${index}]`;
    if (!isObject(item)) return fail(`${at} must be an object with a title and a status`);
    const extra = Object.keys(item).filter((key) => key !== 'title' && key !== 'status');
    if (extra.length > 0)
      return fail(`${at} has an unknown field ${quote(extra[0])}: a step has only title and status`);
    const { title, status } = item;
    if (typeof title !== 'string') return fail(`${at}.title must be a string`);
    const oneLine = title.replace(/\s+/g, ' ').trim();
    if (oneLine === '') return fail(`${at}.title is empty`);
    if (oneLine.length > MAX_PLAN_TITLE) {
      return fail(`${at}.title has ${oneLine.length} characters; at most ${MAX_PLAN_TITLE}`);
    }
    if (!isPlanStatus(status)) {
      return fail(`${at}.status must be "pending", "in_progress" or "done" (got ${quote(status)})`);
    }
    if (status === 'in_progress') {
      if (inProgress !== null) {
        return fail(
          `items[${inProgress}] and ${at} are both in_progress: at most one step is in progress at a time`,
        );
      }
      inProgress = index;
    }
    plan.push({ title: oneLine, status });
  }
  return { ok: true, plan: { items: plan } };
}

function fail(problem: string): PlanCheck {
  return { ok: false, problem };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPlanStatus(value: unknown): value is PlanStatus {
  return typeof value === 'string' && (PLAN_STATUSES as readonly string[]).includes(value);
}

/** A value of the model's, quoted short: it may have sent anything. */
function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}
