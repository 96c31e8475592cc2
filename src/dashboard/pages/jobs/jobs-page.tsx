/**
 * `/projects/{projectId}/jobs`: a prompt box that starts a job (for roles that may write), and
 * the project's jobs, newest first, filtered by status and by text in their prompts. The list
 * asks again every few seconds while a job on it is working, so statuses change on their own.
 */
import { type FormEvent, useEffect, useId, useState } from 'react';
import { Link, useLocation, useParams, useSearchParams } from 'wouter';
import { Button } from '../../components/button.tsx';
import { useCan } from '../../components/current-user.tsx';
import { FormError, TextAreaField } from '../../components/field.tsx';
import { DateTime } from '../../components/format.tsx';
import { Page, Section } from '../../components/page.tsx';
import { EmptyState, ErrorState, Loading } from '../../components/states.tsx';
import { Table } from '../../components/table.tsx';
import { isLocalReview } from './changes.tsx';
import { JobCost, Tokens } from './cost.tsx';
import { JOB_STATUSES, type JobRow, type JobStatus, useCreateJob, useJobList } from './job-api.ts';
import { JobStatusBadge, STATUS_OPTIONS } from './job-status.tsx';
import './jobs.css';

const SEARCH_DELAY_MS = 300;

export default function JobsPage() {
  const { projectId } = useParams<{ projectId: string }>();
  const canWrite = useCan('write');
  return (
    <Page
      title="Jobs"
      description="Ask the documentation agent for a change; it works on its own branch and opens a pull request."
    >
      {canWrite && <NewJob projectId={projectId} />}
      <JobList projectId={projectId} />
    </Page>
  );
}

function NewJob({ projectId }: { projectId: string }) {
  const create = useCreateJob(projectId);
  const [, navigate] = useLocation();
  const [prompt, setPrompt] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!prompt.trim()) return;
    create.mutate(prompt, {
      onSuccess: (job) =>
        navigate(`/projects/${encodeURIComponent(projectId)}/jobs/${encodeURIComponent(job.id)}`),
    });
  };
  return (
    <Section title="New job">
      <form className="form prompt-form" onSubmit={submit}>
        <TextAreaField
          label="What should the agent do?"
          hint="In plain words, as you would ask a colleague. Ctrl+Enter starts the job."
          value={prompt}
          onChange={(event) => setPrompt(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) submit(event);
          }}
          rows={3}
          required
          placeholder="Add a guide about rate limits and link it in the navigation"
        />
        <FormError error={create.error} />
        <div className="form__actions">
          <Button type="submit" variant="primary" busy={create.isPending} disabled={!prompt.trim()}>
            Start job
          </Button>
        </div>
      </form>
    </Section>
  );
}

function JobList({ projectId }: { projectId: string }) {
  const [params, setParams] = useSearchParams();
  const statusParam = params.get('status');
  const status = (JOB_STATUSES as readonly string[]).includes(statusParam ?? '')
    ? (statusParam as JobStatus)
    : null;
  const q = params.get('q') ?? '';
  const [text, setText] = useState(q);
  const searchId = useId();
  const statusId = useId();

  // The search waits for a pause in typing, then goes into the address (so it survives a reload).
  useEffect(() => {
    if (text.trim() === q) return;
    const timer = setTimeout(() => {
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          if (text.trim()) next.set('q', text.trim());
          else next.delete('q');
          return next;
        },
        { replace: true },
      );
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, q, setParams]);

  const list = useJobList(projectId, { status, q });
  const jobs = list.data?.pages.flatMap((page) => page.jobs) ?? [];
  const filtered = status !== null || q !== '';

  return (
    <Section title="All jobs">
      <search className="filters" aria-label="Filter jobs">
        <div className="field filters__search">
          <label className="field__label" htmlFor={searchId}>
            Search prompts
          </label>
          <input
            id={searchId}
            className="input"
            type="search"
            value={text}
            onChange={(event) => setText(event.target.value)}
            placeholder="rate limits"
            maxLength={200}
          />
        </div>
        <div className="field">
          <label className="field__label" htmlFor={statusId}>
            Status
          </label>
          <select
            id={statusId}
            className="input select"
            value={status ?? ''}
            onChange={(event) =>
              setParams(
                (current) => {
                  const next = new URLSearchParams(current);
                  if (event.target.value) next.set('status', event.target.value);
                  else next.delete('status');
                  return next;
                },
                { replace: true },
              )
            }
          >
            <option value="">Any</option>
            {STATUS_OPTIONS.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
      </search>
      {list.isPending ? (
        <Loading label="Loading jobs" />
      ) : list.isError ? (
        <ErrorState error={list.error} onRetry={() => list.refetch()} />
      ) : jobs.length === 0 ? (
        <EmptyState title={filtered ? 'No job matches' : 'No jobs yet'}>
          <p>
            {filtered
              ? 'Try other words, or any status.'
              : 'Jobs started here, through the API or by a script show up in this list.'}
          </p>
        </EmptyState>
      ) : (
        <>
          <div aria-busy={list.isFetching && list.isPlaceholderData} data-testid="jobs-list">
            <Table
              caption="Jobs, newest first"
              rows={jobs}
              rowKey={(job) => job.id}
              columns={[
                {
                  header: 'Job',
                  cell: (job) => (
                    <>
                      <Link
                        href={`/projects/${encodeURIComponent(projectId)}/jobs/${encodeURIComponent(job.id)}`}
                        className="job-link"
                        data-job-id={job.id}
                      >
                        {jobTitle(job)}
                      </Link>
                      <span className="job-meta muted">
                        <DateTime iso={job.createdAt} style="relative" />
                        {job.turns > 1 && ` · ${job.turns} turns`}
                      </span>
                    </>
                  ),
                },
                { header: 'Status', cell: (job) => <JobStatusBadge status={job.status} /> },
                { header: 'Changes', cell: (job) => <ChangeCell job={job} /> },
                {
                  header: 'Estimated cost',
                  align: 'end',
                  cell: (job) => (
                    <span className="job-cost" data-testid="job-list-cost">
                      <JobCost usage={job.usage} />
                      <span className="job-meta muted">
                        <Tokens {...job.usage} />
                      </span>
                    </span>
                  ),
                },
                {
                  header: 'Updated',
                  cell: (job) => <DateTime iso={job.updatedAt} style="relative" />,
                },
              ]}
            />
          </div>
          {list.hasNextPage && (
            <div>
              <Button onClick={() => list.fetchNextPage()} busy={list.isFetchingNextPage}>
                Show older jobs
              </Button>
            </div>
          )}
        </>
      )}
    </Section>
  );
}

function jobTitle(job: JobRow): string {
  const line = job.title.trim().split('\n')[0] ?? '';
  return line.length > 100 ? `${line.slice(0, 99)}…` : line || job.id;
}

function ChangeCell({ job }: { job: JobRow }) {
  if (!job.prLink) return <span className="muted">—</span>;
  // The server reads a local job's branch from the repository: merged shows, however it merged.
  if (job.reviewState === 'merged') return <span className="badge badge--ok review-merged">merged</span>;
  if (isLocalReview(job)) return <span>local review</span>;
  return (
    <a href={job.prLink} target="_blank" rel="noreferrer">
      pull request
    </a>
  );
}
