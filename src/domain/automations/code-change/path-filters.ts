import picomatch from 'picomatch';
import { invalid } from '../../errors.ts';
import type { ChangedFile } from './pull-request-changes.ts';

/**
 * Path filters of a code-change trigger: globs (picomatch syntax, dotfiles included) matched
 * against the repository-relative paths of the pull request's files, old and new names of a
 * rename both counting. No filters: every pull request matches. A leading `!` excludes:
 * `["src/**", "!src/**\/*.test.ts"]` matches a change to src/ that is not only tests.
 */
export function pathFilter(globs: readonly string[]): (files: readonly ChangedFile[]) => boolean {
  const include = globs.filter((g) => !g.startsWith('!'));
  const exclude = globs.filter((g) => g.startsWith('!')).map((g) => g.slice(1));
  if (globs.length === 0) return () => true;
  const included = include.length === 0 ? () => true : picomatch(include, { dot: true });
  const excluded = exclude.length === 0 ? () => false : picomatch(exclude, { dot: true });
  const matches = (path: string) => included(path) && !excluded(path);
  return (files) =>
    files.some((f) => matches(f.path) || (f.previousPath !== null && matches(f.previousPath)));
}

/** Checks globs given by a person; the error names the field and the glob. */
export function checkPathFilters(globs: readonly string[], fieldName = 'pathFilters'): string[] {
  return globs.map((glob, i) => {
    const pattern = glob.startsWith('!') ? glob.slice(1) : glob;
    if (pattern.trim() === '') throw invalid(`${fieldName}[${i}]: must not be empty`);
    try {
      picomatch(pattern);
    } catch {
      throw invalid(`${fieldName}[${i}]: ${glob} is not a valid glob`);
    }
    return glob;
  });
}
