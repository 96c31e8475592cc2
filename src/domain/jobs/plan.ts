/** Where a step of the agent's plan stands. */
export const PLAN_STATUSES = ['pending', 'in_progress', 'done'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/** A plan has 1 to this many steps. */
export const MAX_PLAN_ITEMS = 50;
/** A step's title is 1 to this many characters. */
export const MAX_PLAN_TITLE = 200;

export interface PlanItem {
  title: string;
  status: PlanStatus;
}

/**
 * The agent's plan for its turn, whole: each `update_plan` call replaces the last. At most one
 * step is `in_progress`.
 */
export interface Plan {
  items: PlanItem[];
}
