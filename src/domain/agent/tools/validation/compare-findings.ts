import type { ValidationFinding } from './validate-documentation.ts';

/** Findings of a change, split into those it introduced and those that were there before it. */
export interface ComparedFindings {
  introduced: ValidationFinding[];
  /** How many findings were already there at the base commit (and still are). */
  preExisting: number;
}

/**
 * Subtracts the base commit's findings from the current ones. Findings match by file, rule and
 * message, not line (edits above a finding move it), each base finding matching once, so a
 * second identical broken link in the same page still counts as new.
 */
export function compareFindings(current: ValidationFinding[], base: ValidationFinding[]): ComparedFindings {
  const remaining = new Map<string, number>();
  for (const finding of base) remaining.set(keyOf(finding), (remaining.get(keyOf(finding)) ?? 0) + 1);
  const introduced: ValidationFinding[] = [];
  let preExisting = 0;
  for (const finding of current) {
    const left = remaining.get(keyOf(finding)) ?? 0;
    if (left > 0) {
      remaining.set(keyOf(finding), left - 1);
      preExisting++;
    } else {
      introduced.push(finding);
    }
  }
  return { introduced, preExisting };
}

function keyOf(finding: ValidationFinding): string {
  return `${finding.file}\u0000${finding.rule}\u0000${finding.message}`;
}
