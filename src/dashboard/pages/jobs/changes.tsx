/**
 * What a job changed: the pull request (or, for a repository on this machine, the review and
 * merge that used to be at /review), the branch's commits, and the diff per file with added and
 * removed lines coloured and numbered. Long file diffs start folded.
 */
import { type ReactNode, useMemo, useState } from 'react';
import { Button } from '../../components/button.tsx';
import { ConfirmDialog } from '../../components/dialog.tsx';
import { DateTime } from '../../components/format.tsx';
import { Section } from '../../components/page.tsx';
import { EmptyState, ErrorState, Loading } from '../../components/states.tsx';
import { useToast } from '../../components/toasts.tsx';
import { type FileDiff, parseUnifiedDiff, shownLines } from './diff.ts';
import { type BranchReview, isLive, type Job, useChanges, useMerge } from './job-api.ts';
import { JobSources } from './sources.tsx';

/** A file diff longer than this starts folded; so does every file after the first few of a big change. */
const FOLD_LINES = 400;
const OPEN_FILES = 10;

/** A local repository's job links to Docwright's own review page: `…/review/{jobId}`. */
export function isLocalReview(job: Job): boolean {
  if (!job.prLink) return false;
  try {
    return new URL(job.prLink, window.location.origin).pathname.endsWith(`/review/${job.id}`);
  } catch {
    return false;
  }
}

export function ChangesSection({
  projectId,
  job,
  canWrite,
}: {
  projectId: string;
  job: Job;
  canWrite: boolean;
}) {
  const changes = useChanges(projectId, job.id, job.prLink !== null);
  // Where the changes were read says whether the repository is on this machine (and so mergeable here).
  const local = changes.data ? changes.data.source === 'repository' : isLocalReview(job);

  let body: ReactNode;
  if (job.prLink === null) {
    body = (
      <EmptyState title={isLive(job) ? 'No changes yet' : 'No files changed'}>
        <p>
          {isLive(job)
            ? 'When the agent commits changes, the pull request and the diff show here.'
            : 'This job answered without changing the repository.'}
        </p>
      </EmptyState>
    );
  } else if (changes.isPending) {
    body = <Loading label="Loading the changes" />;
  } else if (changes.isError) {
    body = <ErrorState error={changes.error} onRetry={() => changes.refetch()} />;
  } else {
    body = (
      <BranchChanges
        projectId={projectId}
        job={job}
        review={changes.data}
        local={local}
        canWrite={canWrite}
      />
    );
  }

  return (
    // The job's summary links here (#changes) for a local review.
    <div id="changes" className="changes-anchor">
      <Section
        title="Changes"
        description={
          job.prLink ? (
            local ? (
              'A repository on this machine: review the branch here and merge it.'
            ) : (
              <>
                Review and merge in the{' '}
                <a href={job.prLink} target="_blank" rel="noreferrer" data-testid="pr-link-changes">
                  pull request
                </a>
                .
              </>
            )
          ) : undefined
        }
      >
        {body}
      </Section>
    </div>
  );
}

function BranchChanges({
  projectId,
  job,
  review,
  local,
  canWrite,
}: {
  projectId: string;
  job: Job;
  review: BranchReview;
  local: boolean;
  canWrite: boolean;
}) {
  const files = useMemo(() => parseUnifiedDiff(review.diff), [review.diff]);
  return (
    <div className="changes" data-testid="changes" data-state={review.state}>
      <div className="changes__head">
        <p>
          <code>{review.branch}</code> <span className="muted">into</span> <code>{review.baseBranch}</code>
          {review.state === 'merged' && <span className="badge badge--ok">merged</span>}
          {review.state === 'missing' && <span className="badge">not pushed yet</span>}
        </p>
        {local && canWrite && review.state === 'open' && (
          <MergeButton projectId={projectId} job={job} review={review} />
        )}
      </div>
      {review.state === 'merged' && (
        <p className="muted">Everything on this branch is in {review.baseBranch}.</p>
      )}
      {review.note && <p className="muted">{review.note}</p>}
      {review.source === 'mirror' && review.state !== 'missing' && (
        <p className="muted">As the agent last pushed it; the pull request is the reference.</p>
      )}
      {review.commits.length > 0 && (
        <details className="commits">
          <summary>
            {review.commits.length} commit{review.commits.length === 1 ? '' : 's'}
          </summary>
          <ul className="commits__list">
            {review.commits.map((commit) => (
              <li key={commit.sha}>
                <code>{commit.sha.slice(0, 10)}</code> {commit.subject}{' '}
                <span className="muted">
                  {commit.author.replace(/\s*<[^>]*>$/, '')}, <DateTime iso={commit.date} style="relative" />
                </span>
              </li>
            ))}
          </ul>
        </details>
      )}
      {review.files.length > 0 && (
        <p className="muted">
          {review.files.length} file{review.files.length === 1 ? '' : 's'} changed,{' '}
          <span className="diff-count diff-count--add">+{sum(review.files, 'additions')}</span>{' '}
          <span className="diff-count diff-count--del">−{sum(review.files, 'deletions')}</span>
        </p>
      )}
      <div className="diff-files">
        {files.map((file, index) => (
          <FileDiffView
            key={file.path}
            file={file}
            status={review.files.find((f) => f.path === file.path)?.status ?? null}
            startOpen={index < OPEN_FILES && shownLines(file) <= FOLD_LINES}
          />
        ))}
      </div>
      {review.diffTruncated && (
        <p className="callout callout--warning">The diff is long: only its beginning is shown.</p>
      )}
      <JobSources sources={review.sources} />
    </div>
  );
}

const sum = (files: BranchReview['files'], field: 'additions' | 'deletions') =>
  files.reduce((total, f) => total + (f[field] ?? 0), 0);

function FileDiffView({
  file,
  status,
  startOpen,
}: {
  file: FileDiff;
  status: string | null;
  startOpen: boolean;
}) {
  // The rows are rendered only while open: a folded 5,000-line diff costs nothing.
  const [open, setOpen] = useState(startOpen);
  const lines = shownLines(file);
  return (
    <details className="diff-file" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary className="diff-file__summary">
        <span className="diff-file__path">
          {file.oldPath && <span className="muted">{file.oldPath} → </span>}
          {file.path}
        </span>
        {status && <span className="badge">{status}</span>}
        <span className="diff-count diff-count--add">+{file.additions}</span>
        <span className="diff-count diff-count--del">−{file.deletions}</span>
        {!open && lines > FOLD_LINES && <span className="muted">{lines} lines folded</span>}
      </summary>
      {open &&
        (file.hunks.length === 0 ? (
          <p className="diff-file__empty muted">No text changes to show (a binary file, or a rename).</p>
        ) : (
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
          <section className="diff-scroll" tabIndex={0} aria-label={`Diff of ${file.path}`}>
            <table className="diff">
              <caption className="visually-hidden">Changes to {file.path}</caption>
              <thead className="visually-hidden">
                <tr>
                  <th scope="col">Old line</th>
                  <th scope="col">New line</th>
                  <th scope="col">Change</th>
                  <th scope="col">Text</th>
                </tr>
              </thead>
              {file.hunks.map((hunk, h) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: hunks are fixed for a diff
                <tbody key={h}>
                  <tr className="diff__hunk">
                    <td colSpan={4}>{hunk.header}</td>
                  </tr>
                  {hunk.lines.map((line, i) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: lines are fixed for a diff
                    <tr key={i} className={`diff__line diff__line--${line.kind}`}>
                      <td className="diff__num">{line.oldLine ?? ''}</td>
                      <td className="diff__num">{line.newLine ?? ''}</td>
                      <td className="diff__sign">
                        {line.kind === 'add' ? (
                          <>
                            <span aria-hidden="true">+</span>
                            <span className="visually-hidden">added</span>
                          </>
                        ) : line.kind === 'del' ? (
                          <>
                            <span aria-hidden="true">−</span>
                            <span className="visually-hidden">removed</span>
                          </>
                        ) : (
                          ''
                        )}
                      </td>
                      <td className="diff__text">{line.text}</td>
                    </tr>
                  ))}
                </tbody>
              ))}
            </table>
          </section>
        ))}
    </details>
  );
}

function MergeButton({ projectId, job, review }: { projectId: string; job: Job; review: BranchReview }) {
  const merge = useMerge(projectId, job.id);
  const toast = useToast();
  const [asking, setAsking] = useState(false);
  return (
    <>
      <Button variant="primary" onClick={() => setAsking(true)}>
        Merge into {review.baseBranch}
      </Button>
      <ConfirmDialog
        open={asking}
        title={`Merge into ${review.baseBranch}?`}
        confirmLabel="Merge"
        // A merge is what the page is for, and reversible with git: not red like a deletion.
        confirmVariant="primary"
        busy={merge.isPending}
        error={merge.error}
        onCancel={() => {
          setAsking(false);
          merge.reset();
        }}
        onConfirm={() =>
          merge.mutate(undefined, {
            onSuccess: (result) => {
              setAsking(false);
              toast.success(`Merged into ${review.baseBranch} as ${result.sha.slice(0, 10)}`);
            },
          })
        }
      >
        <p>
          Merges <code>{review.branch}</code> ({review.commits.length} commit
          {review.commits.length === 1 ? '' : 's'}) into <code>{review.baseBranch}</code> with a merge commit.
          A conflict stops the merge and changes nothing.
        </p>
      </ConfirmDialog>
    </>
  );
}
