import { type FormEvent, useState } from 'react';
import { useParams } from 'wouter';
import {
  useAutomations,
  useDeleteAutomation,
  useTriggerAutomation,
  useUpdateAutomation,
} from '../../api/automations.ts';
import type { AutomationPayload, CreatedAutomationPayload } from '../../api/types.ts';
import { Button } from '../../components/button.tsx';
import { useCan } from '../../components/current-user.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { FormError, TextAreaField } from '../../components/field.tsx';
import { Page, Section } from '../../components/page.tsx';
import { RemoveDialog } from '../../components/remove-dialog.tsx';
import { EmptyState, QueryView } from '../../components/states.tsx';
import { Table } from '../../components/table.tsx';
import { useToast } from '../../components/toasts.tsx';
import { AutomationForm } from './automation-form.tsx';
import { NewHookSecret, RotateHookSecretDialog } from './hook-secret.tsx';
import { RunList } from './run-list.tsx';

/**
 * A project's automations: create (a code-change one shows its webhook URL and secret once),
 * edit, enable or disable, delete, run now, and each one's runs.
 */
export default function AutomationsPage() {
  const { projectId } = useParams<{ projectId: string }>();
  const canWrite = useCan('write');
  const automations = useAutomations(projectId);
  const [editing, setEditing] = useState<AutomationPayload | 'new' | null>(null);
  const [created, setCreated] = useState<CreatedAutomationPayload | null>(null);
  const [shownId, setShownId] = useState<string | null>(null);
  const [running, setRunning] = useState<AutomationPayload | null>(null);
  const [deleting, setDeleting] = useState<AutomationPayload | null>(null);
  const [rotating, setRotating] = useState<AutomationPayload | null>(null);
  const toggle = useUpdateAutomation(projectId);
  const toast = useToast();
  const shown = automations.data?.find((a) => a.id === shownId) ?? null;

  return (
    <Page
      title="Automations"
      description="Agent jobs that start by themselves: when a pull request merges in a source repository, on a schedule, or on demand."
      actions={
        canWrite && (
          <Button variant="primary" onClick={() => setEditing('new')}>
            New automation
          </Button>
        )
      }
    >
      {created && <NewHookSecret created={created} onDismiss={() => setCreated(null)} />}
      <Section title="Automations">
        <QueryView query={automations} label="Loading automations">
          {(list) =>
            list.length === 0 ? (
              <EmptyState title="No automations yet">
                <p>
                  Create one to keep the documentation in step with the code without writing a prompt each
                  time.
                </p>
              </EmptyState>
            ) : (
              <Table
                caption="Automations"
                rows={list}
                rowKey={(a) => a.id}
                muted={(a) => !a.enabled}
                columns={[
                  { header: 'Name', cell: (a) => <span className="strong">{a.name}</span> },
                  { header: 'Runs when', cell: (a) => <span className="wrap-column">{triggerText(a)}</span> },
                  { header: 'Pull requests', cell: (a) => (a.draft ? 'Draft' : 'Ready for review') },
                  {
                    header: 'State',
                    cell: (a) => (
                      <span className={a.enabled ? 'badge badge--ok' : 'badge'}>
                        {a.enabled ? 'enabled' : 'disabled'}
                      </span>
                    ),
                  },
                  {
                    header: 'Actions',
                    hideHeader: true,
                    align: 'end',
                    cell: (a) => (
                      <div className="button-row">
                        <Button small onClick={() => setShownId(a.id)} aria-label={`Runs of ${a.name}`}>
                          Runs
                        </Button>
                        {canWrite && (
                          <>
                            <Button
                              small
                              disabled={!a.enabled}
                              onClick={() => setRunning(a)}
                              aria-label={`Run now: ${a.name}`}
                            >
                              Run now
                            </Button>
                            <Button small onClick={() => setEditing(a)} aria-label={`Edit ${a.name}`}>
                              Edit
                            </Button>
                            <Button
                              small
                              busy={toggle.isPending && toggle.variables?.id === a.id}
                              aria-label={`${a.enabled ? 'Disable' : 'Enable'} ${a.name}`}
                              onClick={() =>
                                toggle.mutate(
                                  { id: a.id, change: { enabled: !a.enabled } },
                                  {
                                    onSuccess: (saved) =>
                                      toast.success(
                                        `${saved.name} ${saved.enabled ? 'enabled' : 'disabled'}`,
                                      ),
                                    onError: (error) => toast.error(error.message),
                                  },
                                )
                              }
                            >
                              {a.enabled ? 'Disable' : 'Enable'}
                            </Button>
                            {a.trigger.kind === 'code_change' && (
                              <Button
                                small
                                onClick={() => setRotating(a)}
                                aria-label={`Rotate secret of ${a.name}`}
                              >
                                Rotate secret
                              </Button>
                            )}
                            <Button
                              small
                              variant="danger"
                              onClick={() => setDeleting(a)}
                              aria-label={`Delete ${a.name}`}
                            >
                              Delete
                            </Button>
                          </>
                        )}
                      </div>
                    ),
                  },
                ]}
              />
            )
          }
        </QueryView>
      </Section>
      {shown && <RunList projectId={projectId} automation={shown} />}
      {canWrite && (
        <>
          <Dialog
            open={editing !== null}
            title={editing === 'new' ? 'New automation' : `Edit ${editing?.name ?? ''}`}
            onClose={() => setEditing(null)}
          >
            {editing !== null && (
              <AutomationForm
                projectId={projectId}
                editing={editing === 'new' ? null : editing}
                onCancel={() => setEditing(null)}
                onCreated={(automation) => {
                  setEditing(null);
                  if (automation.webhookSecret) setCreated(automation);
                  else toast.success('Automation created');
                }}
                onSaved={() => {
                  setEditing(null);
                  toast.success('Automation saved');
                }}
              />
            )}
          </Dialog>
          <Dialog
            open={running !== null}
            title={`Run ${running?.name ?? ''} now`}
            onClose={() => setRunning(null)}
          >
            {running && (
              <RunNowForm
                projectId={projectId}
                automation={running}
                onCancel={() => setRunning(null)}
                onStarted={() => {
                  setShownId(running.id);
                  setRunning(null);
                  toast.success('Run started');
                }}
              />
            )}
          </Dialog>
          <RotateHookSecretDialog
            projectId={projectId}
            automation={rotating}
            onClose={() => setRotating(null)}
            onRotated={setCreated}
          />
          <DeleteDialog
            projectId={projectId}
            automation={deleting}
            onClose={() => setDeleting(null)}
            onDeleted={(id) => setShownId((current) => (current === id ? null : current))}
          />
        </>
      )}
    </Page>
  );
}

function triggerText(a: AutomationPayload): string {
  const t = a.trigger;
  if (t.kind === 'schedule') return `Schedule ${t.cron} (${t.timezone})`;
  if (t.kind === 'code_change') {
    const host = t.provider === 'gitlab' ? 'GitLab' : 'GitHub';
    const filters = [
      t.baseBranch ? `into ${t.baseBranch}` : null,
      t.paths && t.paths.length > 0 ? `touching ${t.paths.join(', ')}` : null,
    ].filter(Boolean);
    return `Pull request merged in ${host} ${t.repository}${filters.length ? `, ${filters.join(', ')}` : ''}`;
  }
  return 'By hand or through the API';
}

function RunNowForm({
  projectId,
  automation,
  onCancel,
  onStarted,
}: {
  projectId: string;
  automation: AutomationPayload;
  onCancel: () => void;
  onStarted: () => void;
}) {
  const trigger = useTriggerAutomation(projectId);
  const [context, setContext] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    trigger.mutate({ id: automation.id, context }, { onSuccess: onStarted });
  };
  return (
    <form className="form" onSubmit={submit}>
      <TextAreaField
        label="Extra context (optional)"
        rows={3}
        autoFocus
        hint="Added to the instructions for this run only."
        value={context}
        onChange={(event) => setContext(event.target.value)}
      />
      <FormError error={trigger.error} />
      <div className="dialog__actions">
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={trigger.isPending}>
          Run now
        </Button>
      </div>
    </form>
  );
}

function DeleteDialog({
  projectId,
  automation,
  onClose,
  onDeleted,
}: {
  projectId: string;
  automation: AutomationPayload | null;
  onClose: () => void;
  onDeleted: (id: string) => void;
}) {
  const removal = useDeleteAutomation(projectId);
  return (
    <RemoveDialog
      item={automation}
      removal={removal}
      title="Delete this automation?"
      confirmLabel="Delete automation"
      removed={() => 'Automation deleted'}
      onClose={onClose}
      onRemoved={(a) => onDeleted(a.id)}
    >
      <p>
        <strong>{automation?.name}</strong> starts no more runs, and its run list goes with it. The jobs and
        pull requests it made stay.
      </p>
    </RemoveDialog>
  );
}
