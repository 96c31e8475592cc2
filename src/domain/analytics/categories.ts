/**
 * What kind of client made a view. The exports count `human` and `ai` (and `ai_crawler` as
 * `ai` when the project says so); the other categories appear only in the breakdown.
 */
export const CATEGORIES = ['human', 'ai', 'ai_crawler', 'search', 'bot'] as const;
export type Category = (typeof CATEGORIES)[number];

/** Stable small integers for storage; never reorder, only append. */
export const CATEGORY_CODES: Readonly<Record<Category, number>> = {
  human: 0,
  ai: 1,
  ai_crawler: 2,
  search: 3,
  bot: 4,
};

export function categoryFromCode(code: number): Category {
  const category = CATEGORIES[code];
  if (category === undefined) throw new Error(`Unknown category code ${code}`);
  return category;
}

/**
 * Why an AI client fetched the page: `assistant` for a person, now (ChatGPT-User, Claude-User,
 * coding agents; every `ai` view); `search` to build an AI search index (OAI-SearchBot,
 * PerplexityBot); `training` to collect training data (GPTBot, ClaudeBot, CCBot); `other` when
 * the operator says something else or nothing. Views of other categories have no purpose.
 */
export const PURPOSES = ['assistant', 'search', 'training', 'other'] as const;
export type Purpose = (typeof PURPOSES)[number];

/** Stable small integers for storage (0: no purpose); never reorder, only append. */
export const PURPOSE_CODES: Readonly<Record<Purpose, number>> = {
  assistant: 1,
  search: 2,
  training: 3,
  other: 4,
};

export function purposeFromCode(code: number): Purpose | null {
  if (code === 0) return null;
  const purpose = PURPOSES[code - 1];
  if (purpose === undefined) throw new Error(`Unknown purpose code ${code}`);
  return purpose;
}
