import { useState } from 'react';
import { useParams } from 'wouter';
import type { CreatedWebhookPayload, WebhookDeliveryPayload, WebhookEndpointPayload } from '../api/types.ts';
import { useDeleteWebhook, useDeliveries, useResend, useSendTest, useWebhooks } from '../api/webhooks.ts';
import { Button } from '../components/button.tsx';
import { useCan } from '../components/current-user.tsx';
import { Dialog } from '../components/dialog.tsx';
import { DateTime } from '../components/format.tsx';
import { Page, Section } from '../components/page.tsx';
import { RemoveDialog } from '../components/remove-dialog.tsx';
import { EmptyState, QueryView } from '../components/states.tsx';
import { Table } from '../components/table.tsx';
import { useToast } from '../components/toasts.tsx';
import { EVENT_TYPES, NewSecret, RotateSecretDialog, WebhookForm } from './webhook-forms.tsx';

/**
 * A project's webhook endpoints: create (secret shown once), edit or pause, rotate the secret
 * (shown once), delete, send a test, and each delivery log.
 */
export default function WebhooksPage() {
  const { projectId } = useParams<{ projectId: string }>();
  const canWrite = useCan('write');
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedWebhookPayload | null>(null);
  const [shown, setShown] = useState<WebhookEndpointPayload | null>(null);
  const [editing, setEditing] = useState<WebhookEndpointPayload | null>(null);
  const [rotating, setRotating] = useState<WebhookEndpointPayload | null>(null);
  const toast = useToast();

  return (
    <Page
      title="Webhooks"
      description="Docwright POSTs signed events to these URLs when jobs change, so nothing has to poll."
      actions={
        canWrite && (
          <Button variant="primary" onClick={() => setCreating(true)}>
            Add endpoint
          </Button>
        )
      }
    >
      {created && <NewSecret created={created} onDismiss={() => setCreated(null)} />}
      <Section title="Endpoints">
        <EndpointsTable
          projectId={projectId}
          canWrite={canWrite}
          onShow={setShown}
          onEdit={setEditing}
          onRotate={setRotating}
          onDeleted={(id) => setShown((current) => (current?.id === id ? null : current))}
        />
      </Section>
      {shown && <DeliveryLog projectId={projectId} endpoint={shown} canWrite={canWrite} />}
      {canWrite && (
        <Dialog open={creating} title="Add a webhook endpoint" onClose={() => setCreating(false)}>
          <WebhookForm
            projectId={projectId}
            onCancel={() => setCreating(false)}
            onCreated={(endpoint) => {
              setCreating(false);
              setCreated(endpoint);
            }}
          />
        </Dialog>
      )}
      {canWrite && (
        <Dialog open={editing !== null} title="Edit webhook endpoint" onClose={() => setEditing(null)}>
          {editing && (
            <WebhookForm
              projectId={projectId}
              endpoint={editing}
              onCancel={() => setEditing(null)}
              onSaved={() => {
                setEditing(null);
                toast.success('Endpoint saved');
              }}
            />
          )}
        </Dialog>
      )}
      {canWrite && (
        <RotateSecretDialog
          projectId={projectId}
          endpoint={rotating}
          onClose={() => setRotating(null)}
          onRotated={setCreated}
        />
      )}
    </Page>
  );
}

function EndpointsTable({
  projectId,
  canWrite,
  onShow,
  onEdit,
  onRotate,
  onDeleted,
}: {
  projectId: string;
  canWrite: boolean;
  onShow: (endpoint: WebhookEndpointPayload) => void;
  onEdit: (endpoint: WebhookEndpointPayload) => void;
  onRotate: (endpoint: WebhookEndpointPayload) => void;
  onDeleted: (id: string) => void;
}) {
  const webhooks = useWebhooks(projectId);
  const sendTest = useSendTest(projectId);
  const toast = useToast();
  const [deleting, setDeleting] = useState<WebhookEndpointPayload | null>(null);
  return (
    <>
      <QueryView query={webhooks} label="Loading webhooks">
        {(list) =>
          list.length === 0 ? (
            <EmptyState title="No endpoints yet">
              <p>Add one to be told when jobs are created, complete, fail or open a pull request.</p>
            </EmptyState>
          ) : (
            <Table
              caption="Webhook endpoints"
              rows={list}
              rowKey={(endpoint) => endpoint.id}
              columns={[
                { header: 'URL', cell: (endpoint) => <code className="break-all">{endpoint.url}</code> },
                {
                  header: 'Events',
                  cell: (endpoint) => (
                    <span className="wrap-column">
                      {endpoint.events.length === EVENT_TYPES.length ? 'All' : endpoint.events.join(', ')}
                    </span>
                  ),
                },
                {
                  header: 'State',
                  cell: (endpoint) => (
                    <span className="wrap-column">
                      {endpoint.enabled ? (
                        <span className="badge badge--ok">active</span>
                      ) : (
                        <span className="badge">paused</span>
                      )}
                      {endpoint.previousSecretExpiresAt && (
                        <>
                          {' '}
                          Old secret also signs until <DateTime iso={endpoint.previousSecretExpiresAt} />
                        </>
                      )}
                    </span>
                  ),
                },
                { header: 'Created', cell: (endpoint) => <DateTime iso={endpoint.createdAt} /> },
                {
                  header: 'Actions',
                  hideHeader: true,
                  align: 'end',
                  cell: (endpoint) => (
                    <div className="button-row">
                      <Button
                        small
                        onClick={() => onShow(endpoint)}
                        aria-label={`Deliveries of ${endpoint.url}`}
                      >
                        Deliveries
                      </Button>
                      {canWrite && (
                        <Button
                          small
                          busy={sendTest.isPending && sendTest.variables === endpoint.id}
                          aria-label={`Send test to ${endpoint.url}`}
                          onClick={() =>
                            sendTest.mutate(endpoint.id, {
                              onSuccess: () => {
                                toast.success('Test event queued');
                                onShow(endpoint);
                              },
                              onError: (error) => toast.error(error.message),
                            })
                          }
                        >
                          Send test
                        </Button>
                      )}
                      {canWrite && (
                        <Button small onClick={() => onEdit(endpoint)} aria-label={`Edit ${endpoint.url}`}>
                          Edit
                        </Button>
                      )}
                      {canWrite && (
                        <Button
                          small
                          onClick={() => onRotate(endpoint)}
                          aria-label={`Rotate secret of ${endpoint.url}`}
                        >
                          Rotate secret
                        </Button>
                      )}
                      {canWrite && (
                        <Button
                          small
                          variant="danger"
                          onClick={() => setDeleting(endpoint)}
                          aria-label={`Delete ${endpoint.url}`}
                        >
                          Delete
                        </Button>
                      )}
                    </div>
                  ),
                },
              ]}
            />
          )
        }
      </QueryView>
      <DeleteDialog
        projectId={projectId}
        endpoint={deleting}
        onClose={() => setDeleting(null)}
        onDeleted={onDeleted}
      />
    </>
  );
}

const STATUS_BADGE: Record<WebhookDeliveryPayload['status'], string> = {
  pending: 'badge',
  succeeded: 'badge badge--ok',
  failed: 'badge badge--danger',
};

function DeliveryLog({
  projectId,
  endpoint,
  canWrite,
}: {
  projectId: string;
  endpoint: WebhookEndpointPayload;
  canWrite: boolean;
}) {
  const deliveries = useDeliveries(projectId, endpoint.id);
  const resend = useResend(projectId, endpoint.id);
  const toast = useToast();
  return (
    <Section
      title="Deliveries"
      description={
        <>
          The latest deliveries to <code className="break-all">{endpoint.url}</code>, newest first. Failed
          attempts are retried for 24 hours.
        </>
      }
    >
      <QueryView query={deliveries} label="Loading deliveries">
        {(list) =>
          list.length === 0 ? (
            <EmptyState title="Nothing delivered yet">
              <p>Events appear here as they happen; send a test to see one now.</p>
            </EmptyState>
          ) : (
            <Table
              caption="Deliveries"
              rows={list}
              rowKey={(delivery) => delivery.id}
              columns={[
                {
                  header: 'Event',
                  cell: (delivery) => <span className="strong">{delivery.type}</span>,
                },
                {
                  header: 'Status',
                  cell: (delivery) => (
                    <span className={STATUS_BADGE[delivery.status]}>{delivery.status}</span>
                  ),
                },
                { header: 'Attempts', align: 'end', cell: (delivery) => delivery.attempts },
                {
                  header: 'Last answer',
                  cell: (delivery) => delivery.lastResponseCode ?? (delivery.lastError ? 'none' : '—'),
                },
                {
                  header: 'Last error',
                  cell: (delivery) => <span className="wrap-column">{delivery.lastError ?? '—'}</span>,
                },
                {
                  header: 'When',
                  cell: (delivery) => <DateTime iso={delivery.createdAt} style="relative" />,
                },
                {
                  header: 'Actions',
                  hideHeader: true,
                  align: 'end',
                  cell: (delivery) =>
                    canWrite && (
                      <Button
                        small
                        busy={resend.isPending && resend.variables === delivery.id}
                        aria-label={`Re-send ${delivery.type} delivery ${delivery.id}`}
                        onClick={() =>
                          resend.mutate(delivery.id, {
                            onSuccess: () => toast.success('Delivery queued again'),
                            onError: (error) => toast.error(error.message),
                          })
                        }
                      >
                        Re-send
                      </Button>
                    ),
                },
              ]}
            />
          )
        }
      </QueryView>
    </Section>
  );
}

function DeleteDialog({
  projectId,
  endpoint,
  onClose,
  onDeleted,
}: {
  projectId: string;
  endpoint: WebhookEndpointPayload | null;
  onClose: () => void;
  onDeleted: (id: string) => void;
}) {
  const removal = useDeleteWebhook(projectId);
  return (
    <RemoveDialog
      item={endpoint}
      removal={removal}
      title="Delete this endpoint?"
      confirmLabel="Delete endpoint"
      removed={() => 'Endpoint deleted'}
      onClose={onClose}
      onRemoved={(e) => onDeleted(e.id)}
    >
      <p>
        <code className="break-all">{endpoint?.url}</code> receives no more events; deliveries not yet sent
        are dropped with its log.
      </p>
    </RemoveDialog>
  );
}
