/**
 * `/projects/{projectId}/jobs/{jobId}`: one job as it happens. Its status, the conversation
 * (followed live), the changes and their pull request or local merge, the follow-up box and the
 * archive button (the last two for roles that may write).
 */
import { type FormEvent, useState } from 'react';
import { Link, useParams } from 'wouter';
import { ApiError } from '../../api/client.ts';
import { Button } from '../../components/button.tsx';
import { projectPath } from '../../components/current-project.ts';
import { useCan } from '../../components/current-user.tsx';
import { ConfirmDialog } from '../../components/dialog.tsx';
import { FormError, TextAreaField } from '../../components/field.tsx';
import { DateTime } from '../../components/format.tsx';
import { Page, Section } from '../../components/page.tsx';
import { ErrorState, Loading, QueryView } from '../../components/states.tsx';
import { useToast } from '../../components/toasts.tsx';
import { ChangesSection, isLocalReview } from './changes.tsx';
import { ConversationView } from './conversation.tsx';
import { JobCost } from './cost.tsx';
import {
  type Conversation,
  isLive,
  type Job,
  useArchive,
  useChanges,
  useConversation,
  useFollowUp,
  useJob,
} from './job-api.ts';
import { type Connection, type LiveJob, POLL_MS, useJobLive } from './job-live.ts';
import { JobStatusBadge } from './job-status.tsx';
import { currentPlan, PlanCard } from './plan.tsx';
import './jobs.css';

const numbers = new Intl.NumberFormat();

export default function JobPage() {
  const { projectId, jobId } = useParams<{ projectId: string; jobId: string }>();
  const canWrite = useCan('write');
  const [polling, setPolling] = useState(false);
  const job = useJob(projectId, jobId, polling ? POLL_MS : false);
  const live = useJobLive(projectId, jobId, job.data);
  const pollNow = live.connection === 'polling';
  if (pollNow !== polling) setPolling(pollNow);
  const conversation = useConversation(
    projectId,
    jobId,
    polling ? POLL_MS : false,
    !!job.data && isLive(job.data),
  );

  if (job.isPending) {
    return (
      <Page title="Job">
        <Loading label="Loading the job" />
      </Page>
    );
  }
  if (job.isError) {
    return (
      <Page title="Job">
        <BackLink projectId={projectId} />
        <ErrorState
          error={
            job.error instanceof ApiError && job.error.status === 404
              ? new Error('There is no such job in this project. It may belong to another project.')
              : job.error
          }
          onRetry={() => job.refetch()}
        />
      </Page>
    );
  }
  const title = conversation.data?.turns.find((t) => t.turn === 1)?.prompt ?? 'Job';
  return (
    <Page title={shorten(title)} description={<JobFacts job={job.data} connection={live.connection} />}>
      <BackLink projectId={projectId} />
      <JobSummary projectId={projectId} job={job.data} />
      <CurrentPlan conversation={conversation.data} plans={live.plans} />
      <Section title="Conversation">
        <QueryView query={conversation} label="Loading the conversation">
          {(data) => <ConversationView conversation={data} steps={live.steps} plans={live.plans} />}
        </QueryView>
        <FollowUp projectId={projectId} job={job.data} />
      </Section>
      <ChangesSection projectId={projectId} job={job.data} canWrite={canWrite} />
      <ArchiveSection projectId={projectId} job={job.data} />
    </Page>
  );
}

function CurrentPlan({
  conversation,
  plans,
}: {
  conversation: Conversation | undefined;
  plans: LiveJob['plans'];
}) {
  const plan = conversation ? currentPlan(conversation, plans) : null;
  return plan ? <PlanCard plan={plan} /> : null;
}

function shorten(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 90 ? `${line.slice(0, 89)}…` : line;
}

function BackLink({ projectId }: { projectId: string }) {
  return (
    <p>
      <Link href={projectPath(projectId, 'jobs')}>← All jobs</Link>
    </p>
  );
}

function JobFacts({ job, connection }: { job: Job; connection: Connection }) {
  return (
    <span className="job-facts">
      <JobStatusBadge status={job.status} />
      <span>
        <code>{job.id}</code>
      </span>
      <span>
        created <DateTime iso={job.createdAt} style="relative" />
      </span>
      {isLive(job) && <LiveIndicator connection={connection} />}
    </span>
  );
}

function LiveIndicator({ connection }: { connection: Connection }) {
  if (connection === 'live') return <span className="live live--on">Live</span>;
  if (connection === 'polling')
    return (
      <span className="live" title="Live updates are not available here: the page asks every 2 seconds">
        Updating every {POLL_MS / 1000} s
      </span>
    );
  if (connection === 'connecting') return <span className="live">Connecting…</span>;
  return null;
}

function JobSummary({ projectId, job }: { projectId: string; job: Job }) {
  const { usage } = job;
  // The changes section asks for the same query: one request, and "merged" here as it is there.
  const merged = useChanges(projectId, job.id, isLocalReview(job)).data?.state === 'merged';
  return (
    <div className="job-summary" data-testid="job-summary" data-status={job.status}>
      {job.status === 'failed' && job.failureReason && (
        <div className="form-error text" role="alert">
          {job.failureReason}
        </div>
      )}
      <dl className="facts">
        <dt>{isLocalReview(job) ? 'Review' : 'Pull request'}</dt>
        <dd>
          {job.prLink ? (
            isLocalReview(job) ? (
              <a href="#changes" data-testid="pr-link" data-href={job.prLink}>
                {merged ? 'Merged: see the changes below' : 'Review and merge below'}
              </a>
            ) : (
              <a href={job.prLink} target="_blank" rel="noreferrer" data-testid="pr-link" className="wrap">
                {job.prLink}
              </a>
            )
          ) : (
            <span className="muted">none yet</span>
          )}
        </dd>
        <dt>Branch</dt>
        <dd>
          <code>{job.source.ref}</code> <span className="muted">of</span>{' '}
          <span className="wrap">{job.source.repository}</span>
        </dd>
        <dt>Model</dt>
        <dd>{job.model ?? <span className="muted">none configured</span>}</dd>
        <dt>Tokens</dt>
        <dd data-testid="job-usage">
          {numbers.format(usage.inputTokens)} input · {numbers.format(usage.outputTokens)} output
        </dd>
        <dt>Estimated cost</dt>
        <dd data-testid="job-cost">
          <JobCost usage={usage} />
        </dd>
        <dt>Updated</dt>
        <dd>
          <DateTime iso={job.updatedAt} style="relative" />
        </dd>
      </dl>
    </div>
  );
}

function FollowUp({ projectId, job }: { projectId: string; job: Job }) {
  const canWrite = useCan('write');
  const followUp = useFollowUp(projectId, job.id);
  const toast = useToast();
  const [prompt, setPrompt] = useState('');
  if (!canWrite) return null;
  if (job.status === 'archived')
    return <p className="muted">This job is archived: it takes no more messages.</p>;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!prompt.trim()) return;
    followUp.mutate(prompt, {
      onSuccess: () => {
        setPrompt('');
        toast.success('Follow-up sent');
      },
    });
  };
  return (
    <form className="form prompt-form" onSubmit={submit}>
      <TextAreaField
        label="Follow-up"
        hint={
          isLive(job)
            ? 'Queued behind the running turn. Ctrl+Enter sends.'
            : 'Continues the same branch and pull request. Ctrl+Enter sends.'
        }
        value={prompt}
        onChange={(event) => setPrompt(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) submit(event);
        }}
        rows={3}
        required
        placeholder="Also mention the limits of the free plan"
      />
      <FormError error={followUp.error} />
      <div className="form__actions">
        <Button type="submit" variant="primary" busy={followUp.isPending} disabled={!prompt.trim()}>
          Send follow-up
        </Button>
      </div>
    </form>
  );
}

function ArchiveSection({ projectId, job }: { projectId: string; job: Job }) {
  const canWrite = useCan('write');
  const archive = useArchive(projectId, job.id);
  const toast = useToast();
  const [asking, setAsking] = useState(false);
  if (!canWrite || job.status === 'archived') return null;
  return (
    <Section
      title="Archive"
      description="Stops the job: a running turn is cancelled and the job takes no more messages. The branch and pull request stay."
    >
      <div>
        <Button variant="danger" onClick={() => setAsking(true)}>
          Archive job
        </Button>
      </div>
      <ConfirmDialog
        open={asking}
        title="Archive this job?"
        confirmLabel="Archive"
        busy={archive.isPending}
        error={archive.error}
        onCancel={() => {
          setAsking(false);
          archive.reset();
        }}
        onConfirm={() =>
          archive.mutate(undefined, {
            onSuccess: () => {
              setAsking(false);
              toast.success('Job archived');
            },
          })
        }
      >
        <p>It cannot be continued afterwards; start a new job instead.</p>
      </ConfirmDialog>
    </Section>
  );
}
