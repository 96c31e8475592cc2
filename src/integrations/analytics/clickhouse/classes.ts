/**
 * How the ClickHouse store names what a view counts as, for the first-visit tables.
 *
 * A view's **class** is one bit of a UInt32 mask: bit 0 for `human`; for `ai` and `ai_crawler`
 * one bit per (category, purpose code 0–4, verified). Search and bot views have no class: the
 * page exports never count them. A **side** is a set of classes an export counts as one
 * distinct-visitor figure (human; ai with or without crawlers, verified or not; their union with
 * human for `total`; each purpose, verified or not). The first-visit tables keep one list of
 * visit days per (page, visitor, side), so every combination of `countAiCrawlersAsAi` and
 * `verifiedOnly` is a choice of sides at query time, and the stored classes never change with
 * those settings.
 */

/** Category codes (CATEGORY_CODES) the page exports can count. */
const HUMAN = 0;
const AI = 1;
const AI_CRAWLER = 2;

/** The class bit of a view, or 0 when the page exports never count it. */
export function classBit(category: number, purpose: number, verified: boolean): number {
  if (category === HUMAN) return 1;
  if (category !== AI && category !== AI_CRAWLER) return 0;
  return 2 ** (1 + (category - AI) * 10 + purpose * 2 + (verified ? 1 : 0));
}

/** How many classes there are: bit 0 (human), then bits 1–20 (ai and ai_crawler). */
export const CLASS_COUNT = 21;

/** The class bit's number (0–20) of a view, or -1 when the page exports never count it. */
export function classIndex(category: number, purpose: number, verified: boolean): number {
  if (category === HUMAN) return 0;
  if (category !== AI && category !== AI_CRAWLER) return -1;
  return 1 + (category - AI) * 10 + purpose * 2 + (verified ? 1 : 0);
}

/** `classIndex` in SQL over the columns of `views`; 255 where the view has no class. */
export const CLASS_INDEX_SQL = `toUInt8(if(category = ${HUMAN}, 0,
  if(category IN (${AI}, ${AI_CRAWLER}), 1 + (category - ${AI}) * 10 + purpose * 2 + verified, 255)))`;

/** `classBit` in SQL over the columns of `views` (category, purpose, verified). */
export const CLASS_BIT_SQL = `toUInt32(if(category = ${HUMAN}, 1,
  if(category IN (${AI}, ${AI_CRAWLER}), bitShiftLeft(toUInt32(1), 1 + (category - ${AI}) * 10 + purpose * 2 + verified), 0)))`;

interface ClassOf {
  category: number;
  purpose: number;
  verified: boolean;
}

function every(): ClassOf[] {
  const all: ClassOf[] = [{ category: HUMAN, purpose: 0, verified: false }];
  for (const category of [AI, AI_CRAWLER])
    for (let purpose = 0; purpose <= 4; purpose++)
      for (const verified of [false, true]) all.push({ category, purpose, verified });
  return all;
}

function maskOf(test: (c: ClassOf) => boolean): number {
  let mask = 0;
  for (const c of every()) if (test(c)) mask |= classBit(c.category, c.purpose, c.verified);
  return mask >>> 0;
}

const isAgent = (c: ClassOf) => c.category === AI || c.category === AI_CRAWLER;
/** The `ai` side of each (countAiCrawlersAsAi, verifiedOnly): index crawlers * 2 + verified. */
const aiTests: Array<(c: ClassOf) => boolean> = [
  (c) => c.category === AI,
  (c) => c.category === AI && c.verified,
  isAgent,
  (c) => isAgent(c) && c.verified,
];

/** Every side's class mask, by side number (bit s of the count tables' `sides`; never reorder). */
export const SIDE_MASKS: readonly number[] = [
  maskOf((c) => c.category === HUMAN),
  ...aiTests.map((test) => maskOf(test)),
  ...aiTests.map((test) => maskOf((c) => c.category === HUMAN || test(c))),
  ...[1, 2, 3, 4].map((p) => maskOf((c) => isAgent(c) && c.purpose === p)),
  ...[1, 2, 3, 4].map((p) => maskOf((c) => isAgent(c) && c.purpose === p && c.verified)),
];

/** Per class number, the sides holding it, as a mask of side numbers (bit s: side s). */
export const SIDES_OF_CLASS: readonly number[] = Array.from({ length: CLASS_COUNT }, (_, c) => {
  let sides = 0;
  for (const [s, mask] of SIDE_MASKS.entries()) if ((mask & (2 ** c)) !== 0) sides |= 2 ** s;
  return sides >>> 0;
});

/** The sides one export counts: human, ai, total, then the four purposes (assistant … other). */
export interface ExportSides {
  human: number;
  ai: number;
  total: number;
  purposes: readonly [number, number, number, number];
}

export function exportSides(countAiCrawlersAsAi: boolean, verifiedOnly: boolean): ExportSides {
  const ai = (countAiCrawlersAsAi ? 2 : 0) + (verifiedOnly ? 1 : 0);
  const purposes = verifiedOnly ? 13 : 9;
  return {
    human: 0,
    ai: 1 + ai,
    total: 5 + ai,
    purposes: [purposes, purposes + 1, purposes + 2, purposes + 3],
  };
}

/** The export's sides in Counts order: human, ai, total, aiAssistant, aiSearch, aiTraining, aiOther. */
export function sideList(sides: ExportSides): number[] {
  return [sides.human, sides.ai, sides.total, ...sides.purposes];
}

/** "Never visited before": the `prev` of a first visit, below every day. */
export const NEVER = -2147483648;

/** "No later visit": the `next` of a last visit, above every day. */
export const LATEST = 2147483647;

/**
 * First-visit tables keep times of day as quarter hours (0–95): every time zone's offset is a
 * multiple of 15 minutes, so a range from one local midnight to another has its clipped edges
 * on quarter-hour boundaries, and the edges are counted from sums, not from visitors.
 */
export const QUARTER_MS = 900_000;
export const QUARTERS_PER_DAY = 96;
