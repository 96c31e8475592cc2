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
