import type { MergedPullRequest } from './events.ts';

/**
 * The key a code-change run is deduplicated on, per automation: the pull request and the
 * commit its merge made (`github:owner/name#12@<sha>`). A redelivery of the same delivery id
 * carries the same pull request and commit, and a second delivery of the same merge (a new
 * delivery id: the webhook set up twice, or an organisation and a repository hook) does
 * too, so this one key covers both. Only when the host names no commit is the delivery id
 * the key; with neither, nothing can tell a redelivery apart and null is returned.
 */
export function dedupeKeyFor(pr: MergedPullRequest): string | null {
  if (pr.mergeCommitSha !== null) return `${pr.provider}:${pr.repository}#${pr.number}@${pr.mergeCommitSha}`;
  if (pr.deliveryId !== null) return `${pr.provider}:delivery:${pr.deliveryId}`;
  return null;
}
