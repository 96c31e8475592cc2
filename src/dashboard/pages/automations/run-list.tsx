import { Link } from 'wouter';
import { useRuns } from '../../api/automations.ts';
import type { AutomationPayload, AutomationRunPayload } from '../../api/types.ts';
import { DateTime, formatUsd } from '../../components/format.tsx';
import { Section } from '../../components/page.tsx';
import { EmptyState, QueryView } from '../../components/states.tsx';
import { Table } from '../../components/table.tsx';

const STATUS: Record<AutomationRunPayload['status'], { label: string; badge: string }> = {
  queued: { label: 'queued', badge: 'badge' },
  running: { label: 'running', badge: 'badge badge--accent' },
  completed: { label: 'completed', badge: 'badge badge--ok' },
  no_change: { label: 'no change needed', badge: 'badge badge--ok' },
  failed: { label: 'failed', badge: 'badge badge--danger' },
  rate_limited: { label: 'over the daily limit', badge: 'badge badge--danger' },
};

const TRIGGERS: Record<AutomationRunPayload['trigger'], string> = {
  code_change: 'merged pull request',
  schedule: 'schedule',
  manual: 'by hand',
};

/** An automation's latest runs: what started each, its outcome, its job and pull request, and why. */
export function RunList({ projectId, automation }: { projectId: string; automation: AutomationPayload }) {
  const runs = useRuns(projectId, automation.id);
  return (
    <Section
      title={`Runs of ${automation.name}`}
      description="Newest first. A run adds its commits to the pull request of an earlier run while that one is open."
    >
      <QueryView query={runs} label="Loading runs">
        {(list) =>
          list.length === 0 ? (
            <EmptyState title="No runs yet">
              <p>Runs appear here when the trigger fires, or when you run the automation now.</p>
            </EmptyState>
          ) : (
            <Table
              caption="Runs"
              rows={list}
              rowKey={(run) => run.id}
              columns={[
                { header: 'Started', cell: (run) => <DateTime iso={run.createdAt} style="relative" /> },
                { header: 'Trigger', cell: (run) => TRIGGERS[run.trigger] },
                {
                  header: 'Status',
                  cell: (run) => <span className={STATUS[run.status].badge}>{STATUS[run.status].label}</span>,
                },
                {
                  header: 'Source',
                  cell: (run) =>
                    run.source ? (
                      <a href={run.source.url} target="_blank" rel="noreferrer">
                        #{run.source.number} {run.source.title}
                      </a>
                    ) : (
                      <span className="muted">—</span>
                    ),
                },
                {
                  header: 'Job',
                  cell: (run) =>
                    run.jobId ? (
                      <Link href={`/projects/${projectId}/jobs/${run.jobId}`}>
                        {run.followUp ? 'Follow-up' : 'Job'}
                        <span className="visually-hidden"> {run.jobId}</span>
                      </Link>
                    ) : (
                      <span className="muted">—</span>
                    ),
                },
                {
                  header: 'Pull request',
                  cell: (run) =>
                    run.prLink ? (
                      <a href={run.prLink} target="_blank" rel="noreferrer">
                        Pull request
                      </a>
                    ) : (
                      <span className="muted">—</span>
                    ),
                },
                {
                  header: 'Estimated cost',
                  cell: (run) =>
                    run.usage === null ? (
                      '—'
                    ) : run.usage.costUsd === null ? (
                      <span className="muted" title="The model has no price in the server's price table">
                        unknown
                      </span>
                    ) : (
                      <span
                        title={`Estimated from the server's price table: ${run.usage.inputTokens} input and ${run.usage.outputTokens} output tokens`}
                      >
                        {formatUsd(run.usage.costUsd)}
                      </span>
                    ),
                },
                {
                  header: 'Why',
                  cell: (run) => <span className="wrap-column">{run.reason ?? '—'}</span>,
                },
              ]}
            />
          )
        }
      </QueryView>
    </Section>
  );
}
