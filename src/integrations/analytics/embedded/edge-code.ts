import { AI, countsPurpose, HUMAN, SIDE_AI, SIDE_HUMAN, SIDE_PURPOSE, SIDE_TOTAL } from './index-layout.ts';

/**
 * The list sides (index-layout.ts) a view of the default selection counts on, as a mask (0:
 * none): the lists a view of this category and purpose is entered in (DayIndex.addView).
 */
export function edgeCode(category: number, purpose: number): number {
  let code = 0;
  if (category === HUMAN) code = (1 << SIDE_HUMAN) | (1 << SIDE_TOTAL);
  else if (category === AI) code = (1 << SIDE_AI) | (1 << SIDE_TOTAL);
  if (countsPurpose(category, purpose)) code |= 1 << (SIDE_PURPOSE + purpose - 1);
  return code;
}
