/**
 * Finds the first pattern of an ordered list that matches a text, quickly: one alternation of
 * plain strings (what V8 runs fastest) rejects most texts at once, then groups of 16 narrow the
 * search before any full pattern is tried. Each pattern's plain strings are the literal text
 * every match of it must contain (see `requiredLiterals`); a pattern without one is always tried.
 */
export class FirstMatch<T extends { pattern: string }> {
  private readonly any: RegExp | null;
  private readonly groups: Array<{ test: RegExp | null; members: Array<{ entry: T; regex: RegExp }> }>;

  constructor(entries: readonly T[], groupSize = 16) {
    const all: string[] = [];
    let unanchored = false;
    this.groups = [];
    for (let start = 0; start < entries.length; start += groupSize) {
      const members = entries.slice(start, start + groupSize).map((entry) => ({
        entry,
        regex: new RegExp(entry.pattern, 'i'),
        literals: requiredLiterals(entry.pattern),
      }));
      const literals = members.flatMap((m) => m.literals ?? []);
      const complete = members.every((m) => m.literals !== null);
      unanchored ||= !complete;
      all.push(...literals);
      this.groups.push({
        test: complete ? alternation(literals) : null,
        members: members.map(({ entry, regex }) => ({ entry, regex })),
      });
    }
    this.any = unanchored ? null : alternation(all);
  }

  find(text: string): T | null {
    if (this.any && !this.any.test(text)) return null;
    for (const group of this.groups) {
      if (group.test && !group.test.test(text)) continue;
      for (const member of group.members) if (member.regex.test(text)) return member.entry;
    }
    return null;
  }
}

function alternation(literals: readonly string[]): RegExp {
  const unique = [...new Set(literals)];
  // Never matches when empty (an empty group of patterns).
  if (unique.length === 0) return /(?!)/;
  return new RegExp(unique.map((l) => l.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'i');
}

// Text found in every browser's user agent: a poor prefilter, since most traffic has it.
const COMMON =
  'mozilla/5.0 (windows nt 10.0; win64; x64) applewebkit/537.36 (khtml, like gecko) chrome/131.0.0.0 mobile safari/537.36 version/18.1 firefox/133.0 edg/131.0 (compatible; +http://www.';

/**
 * For each top-level alternative of a regular expression, a piece of literal text that every
 * match contains (lower case, to be matched case-insensitively): the longest one that is not
 * common to browsers. Null when some alternative has none (only classes, wildcards, groups).
 */
export function requiredLiterals(pattern: string): string[] | null {
  const literals: string[] = [];
  for (const alternative of splitAlternatives(pattern)) {
    const runs = literalRuns(alternative)
      .map((r) => r.toLowerCase())
      .filter((r) => r.length > 0)
      .sort((a, b) => b.length - a.length);
    const chosen = runs.find((r) => !COMMON.includes(r)) ?? runs[0];
    if (chosen === undefined) return null;
    literals.push(chosen);
  }
  return literals;
}

/** Splits at the `|`s outside groups and classes. */
function splitAlternatives(pattern: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) {
      parts.push(pattern.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(pattern.slice(start));
  return parts;
}

/**
 * The runs of literal characters one alternative must match, in order. Groups, classes,
 * wildcards and assertions end a run (their content is skipped); a `?`, `*` or `{…}` takes the
 * optional character back off the run.
 */
function literalRuns(alternative: string): string[] {
  const runs: string[] = [];
  let run = '';
  const end = () => {
    runs.push(run);
    run = '';
  };
  for (let i = 0; i < alternative.length; i++) {
    const c = alternative[i] as string;
    if (c === '\\') {
      const next = alternative[i + 1] ?? '';
      i++;
      if (/[A-Za-z0-9]/.test(next)) {
        // \b \d \w \s …; \xHH \uHHHH \cX consume what follows.
        if (next === 'x') i += 2;
        else if (next === 'u') i += 4;
        else if (next === 'c') i += 1;
        end();
      } else run += next;
    } else if (c === '[' || c === '(') {
      i = skipBracketed(alternative, i);
      end();
    } else if (c === '?' || c === '*' || c === '{') {
      run = run.slice(0, -1);
      end();
      if (c === '{') i = alternative.indexOf('}', i);
      if (i === -1) break;
    } else if (c === '+' || c === '.' || c === '^' || c === '$') {
      end();
    } else run += c;
  }
  end();
  return runs;
}

/** The index of the `]` or `)` that closes the class or group opening at `start`. */
function skipBracketed(text: string, start: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (inClass) {
      if (c === ']') {
        inClass = false;
        if (depth === 0) return i;
      }
    } else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return text.length;
}
