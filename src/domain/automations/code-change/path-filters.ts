import picomatch from 'picomatch';

/**
 * Path filters of a code-change trigger: globs (picomatch syntax, dotfiles included) matched
 * against the repository-relative paths a pull request touches (both names of a renamed
 * file). No filters: every pull request matches. A glob starting with `!` excludes:
 * `["src/**", "!**\/*.test.ts"]` matches a change to src/ that is not only tests, and
 * `["!docs/**"]` alone matches any change outside docs/.
 */
export function pathFilter(globs: readonly string[]): (paths: readonly string[]) => boolean {
  if (globs.length === 0) return () => true;
  const include = globs.filter((g) => !g.startsWith('!'));
  const exclude = globs.filter((g) => g.startsWith('!')).map((g) => g.slice(1));
  const included = include.length === 0 ? () => true : picomatch(include, { dot: true });
  const excluded = exclude.length === 0 ? () => false : picomatch(exclude, { dot: true });
  return (paths) => paths.some((path) => included(path) && !excluded(path));
}
