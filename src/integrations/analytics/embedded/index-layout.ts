/**
 * What a day's index keeps, by number: the per-page segments, the day's category and purpose
 * sets, the per-hour sets; and which of them a query counts (see `Selection`). One place, so
 * the index, its snapshot, the rebuild and the queries agree.
 *
 * Purposes are rare (only `ai` and `ai_crawler` views carry one) and verified agents rarer, so
 * their segments are empty for most pages: an empty segment costs its offset and view count
 * in the packed day and nothing else.
 */

/** Category codes (CATEGORY_CODES) the index names. */
export const HUMAN = 0;
export const AI = 1;
export const CRAWLER = 2;
export const CATEGORY_COUNT = 5;
/** Categories whose views count as `bot` under `verifiedOnly` when not verified (ai, ai_crawler, search). */
export function verifiable(category: number): boolean {
  return category >= 1 && category <= 3;
}
export const BOT = 4;
export const PURPOSE_COUNT = 4;

// Per page and day. Segments 0..LIST_SIDES−1 are previous-visit lists (counted over whole days
// by their previous visits, see PrevList); the rest are plain visitor sets, counted by unions.
/** Human views. */
export const SIDE_HUMAN = 0;
/** `ai` views. */
export const SIDE_AI = 1;
/** Human ∪ `ai` views. */
export const SIDE_TOTAL = 2;
/** + purpose code − 1: `ai` and `ai_crawler` views with that purpose. */
export const SIDE_PURPOSE = 3;
export const LIST_SIDES = 7;
/** `ai_crawler` views. */
export const SET_CRAWLER = 7;
/** Verified `ai` views. */
export const SET_AI_VERIFIED = 8;
/** Verified `ai_crawler` views. */
export const SET_CRAWLER_VERIFIED = 9;
/** + purpose code − 1: verified `ai` and `ai_crawler` views with that purpose. */
export const SET_PURPOSE_VERIFIED = 10;
export const SEGMENTS = 14;

/** The day's category sets: index category + CATEGORY_COUNT when verified. */
export function categorySlot(category: number, verified: boolean): number {
  return verified ? category + CATEGORY_COUNT : category;
}
export const CATEGORY_SLOTS = 2 * CATEGORY_COUNT;

/** The day's purpose sets (`ai` and `ai_crawler` views): purpose code − 1, + PURPOSE_COUNT when verified. */
export function purposeSlot(purposeCode: number, verified: boolean): number {
  return purposeCode - 1 + (verified ? PURPOSE_COUNT : 0);
}
export const PURPOSE_SLOTS = 2 * PURPOSE_COUNT;

// Per hour: human; ai and ai_crawler, unverified and verified; the purposes, unverified and verified.
const HOUR_AI = 1;
const HOUR_CRAWLER = 3;
const HOUR_PURPOSE = 5;
export const HOUR_SLOTS = 13;

/** The hour slot of a view of category human, ai or ai_crawler (−1 for others). */
export function hourCategorySlot(category: number, verified: boolean): number {
  if (category === HUMAN) return 0;
  const v = verified ? 1 : 0;
  if (category === AI) return HOUR_AI + v;
  if (category === CRAWLER) return HOUR_CRAWLER + v;
  return -1;
}

export function hourPurposeSlot(purposeCode: number, verified: boolean): number {
  return HOUR_PURPOSE + purposeCode - 1 + (verified ? PURPOSE_COUNT : 0);
}

/** A view of these carries a purpose the exports split by. */
export function countsPurpose(category: number, purposeCode: number): boolean {
  return (category === AI || category === CRAWLER) && purposeCode !== 0;
}

/** Agent sets are keyed by agent, verified and category (a generic agent name can be in two categories). */
export function agentKey(agent: number, category: number, verified: boolean): number {
  return agent * 16 + (verified ? 8 : 0) + category;
}

export function agentKeyParts(key: number): { agent: number; category: number; verified: boolean } {
  return { agent: Math.floor(key / 16), category: key % 8, verified: (key & 8) !== 0 };
}

/** A view's category as a query counts it (the codes' form of the domain's `countedCategory`). */
export function countedCode(category: number, verified: boolean, verifiedOnly: boolean): number {
  return verifiedOnly && !verified && verifiable(category) ? BOT : category;
}

/**
 * Which sets a query counts for each number of `Counts`: `human`, the `ai` side (its union with
 * human is `total`) and the four purposes, as lists of slot numbers: of the day's category and
 * purpose sets (`day`), of an hour's sets (`hour`), of a page's segments (`page`).
 */
export interface Selection {
  /**
   * The default query (ai without crawlers, every agent): the page lists themselves are what
   * it counts, so whole days and clipped edges are counted by previous visits.
   */
  byPreviousVisits: boolean;
  day: { human: number[]; ai: number[]; purposes: number[][] };
  hour: { human: number[]; ai: number[]; purposes: number[][] };
  page: { human: number[]; ai: number[]; purposes: number[][] };
}

export function selection(countAiCrawlersAsAi: boolean, verifiedOnly: boolean): Selection {
  const flags = verifiedOnly ? [true] : [false, true];
  const aiCategories = countAiCrawlersAsAi ? [AI, CRAWLER] : [AI];
  const purposes = [1, 2, 3, 4];
  const page = verifiedOnly
    ? {
        ai: countAiCrawlersAsAi ? [SET_AI_VERIFIED, SET_CRAWLER_VERIFIED] : [SET_AI_VERIFIED],
        purposes: purposes.map((p) => [SET_PURPOSE_VERIFIED + p - 1]),
      }
    : {
        ai: countAiCrawlersAsAi ? [SIDE_AI, SET_CRAWLER] : [SIDE_AI],
        purposes: purposes.map((p) => [SIDE_PURPOSE + p - 1]),
      };
  return {
    byPreviousVisits: !countAiCrawlersAsAi && !verifiedOnly,
    day: {
      human: [categorySlot(HUMAN, false), categorySlot(HUMAN, true)],
      ai: aiCategories.flatMap((c) => flags.map((v) => categorySlot(c, v))),
      purposes: purposes.map((p) => flags.map((v) => purposeSlot(p, v))),
    },
    hour: {
      human: [hourCategorySlot(HUMAN, false)],
      ai: aiCategories.flatMap((c) => flags.map((v) => hourCategorySlot(c, v))),
      purposes: purposes.map((p) => flags.map((v) => hourPurposeSlot(p, v))),
    },
    page: { human: [SIDE_HUMAN], ...page },
  };
}
