import type { MergedPullRequest } from './events.ts';
import type { ChangedFile, PullRequestChanges } from './pull-request-changes.ts';

/** How much of a pull request's diff goes into the prompt. */
export interface SummaryLimits {
  /** Characters of one file's patch; the rest is cut with a note. */
  perFilePatchChars: number;
  /** Characters of all patches together; later files are listed with their counts only. */
  totalPatchChars: number;
  /** Files listed at all; beyond that, only how many more there are. */
  maxFilesListed: number;
  /** Characters of the pull request's description. */
  descriptionChars: number;
}

export const DEFAULT_SUMMARY_LIMITS: SummaryLimits = {
  perFilePatchChars: 6_000,
  totalPatchChars: 60_000,
  maxFilesListed: 300,
  descriptionChars: 8_000,
};

// Lock files and generated output say little about what the docs should say: their patches
// go last, after every file a person wrote.
const LOW_VALUE =
  /(^|\/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|Cargo\.lock|go\.sum|poetry\.lock|composer\.lock|Gemfile\.lock)$|(^|\/)(dist|vendor|node_modules)\/|\.min\.(js|css)$|\.snap$/;

/**
 * The context a code-change run gives the agent: the pull request's title, description and
 * diff, bounded. Each patch is cut at `perFilePatchChars`; patches stop once
 * `totalPatchChars` are used and the remaining files are listed with their +/- counts, up to
 * `maxFilesListed` files in all, so a pull request of any size gives a prompt of bounded size.
 */
export function changeContext(
  pr: MergedPullRequest,
  changes: PullRequestChanges,
  limits: SummaryLimits = DEFAULT_SUMMARY_LIMITS,
): string {
  const files = [...changes.files].sort(
    (a, b) => Number(LOW_VALUE.test(a.path)) - Number(LOW_VALUE.test(b.path)),
  );
  const added = sum(files, 'additions');
  const removed = sum(files, 'deletions');
  const author = changes.author ?? pr.author;
  const lines = [
    `A pull request was merged in ${pr.repository}: ${pr.url}`,
    `Title: ${pr.title}`,
    `Number: ${pr.number}${author ? `, by @${author}` : ''}, merged into ${pr.baseBranch}${pr.mergeCommitSha ? ` as ${pr.mergeCommitSha}` : ''}`,
    '',
    'Description:',
    cut(pr.description.trim() || '(none)', limits.descriptionChars, 'description'),
    '',
    `Changed files: ${files.length}${changes.truncated ? '+ (the host lists no more)' : ''}, +${added} -${removed}`,
  ];
  let budget = limits.totalPatchChars;
  const listed: ChangedFile[] = [];
  const notShown: ChangedFile[] = [];
  for (const file of files.slice(0, limits.maxFilesListed)) {
    const patch = file.patch === null ? null : cut(file.patch, limits.perFilePatchChars, 'patch');
    if (patch !== null && patch.length <= budget) {
      budget -= patch.length;
      lines.push('', `--- ${describe(file)}`, '```diff', patch, '```');
      listed.push(file);
    } else {
      notShown.push(file);
    }
  }
  if (notShown.length > 0) {
    lines.push('', `Files without their diff here (binary, too large, or past the limit of this summary):`);
    for (const file of notShown) lines.push(`- ${describe(file)}`);
  }
  const unlisted = files.length - listed.length - notShown.length;
  if (unlisted > 0) lines.push(`- and ${unlisted} more file(s)`);
  return lines.join('\n');
}

function describe(file: ChangedFile): string {
  const name =
    file.previousPath && file.previousPath !== file.path ? `${file.previousPath} -> ${file.path}` : file.path;
  return `${name} (${file.status}, +${file.additions} -${file.deletions})`;
}

function cut(text: string, max: number, what: string): string {
  if (text.length <= max) return text;
  const rest = text.slice(max);
  const more = rest.split('\n').length;
  return `${text.slice(0, max)}\n… (${what} cut here: ${more} more line(s))`;
}

const sum = (files: ChangedFile[], key: 'additions' | 'deletions') => files.reduce((n, f) => n + f[key], 0);
