import { type FormEvent, useState } from 'react';
import type { CreatedWebhookPayload, WebhookEndpointPayload, WebhookEventType } from '../api/types.ts';
import { useCreateWebhook, useRotateSecret, useUpdateWebhook } from '../api/webhooks.ts';
import { Button } from '../components/button.tsx';
import { CopyButton } from '../components/copy-button.tsx';
import { ConfirmDialog } from '../components/dialog.tsx';
import { CheckboxField, FormError, TextField } from '../components/field.tsx';
import { DateTime } from '../components/format.tsx';
import { WarningIcon } from '../components/icons.tsx';

// Every event type, in the server's order (a new one fails the type check here until it is described).
const EVENTS = {
  'job.created': 'A job was created',
  'job.completed': 'A job completed',
  'job.failed': 'A job failed',
  'job.archived': 'A job was archived',
  'job.pull_request_opened': "A job's pull request was opened",
  'automation.run_completed': 'An automation run completed (or was refused over its daily limit)',
} satisfies Record<WebhookEventType, string>;
export const EVENT_TYPES = Object.keys(EVENTS) as WebhookEventType[];

/**
 * Adds an endpoint (`endpoint` absent) or edits one: its URL, events and whether it receives
 * new events. What did not change is not sent.
 */
export function WebhookForm({
  projectId,
  endpoint,
  onCancel,
  onCreated,
  onSaved,
}: {
  projectId: string;
  endpoint?: WebhookEndpointPayload;
  onCancel: () => void;
  onCreated?: (created: CreatedWebhookPayload) => void;
  onSaved?: () => void;
}) {
  const create = useCreateWebhook(projectId);
  const update = useUpdateWebhook(projectId);
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [events, setEvents] = useState<WebhookEventType[]>(endpoint?.events ?? EVENT_TYPES);
  const [enabled, setEnabled] = useState(endpoint?.enabled ?? true);
  const mutation = endpoint ? update : create;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const all = events.length === EVENT_TYPES.length;
    if (!endpoint) {
      create.mutate({ url: url.trim(), ...(all ? {} : { events }) }, { onSuccess: onCreated });
      return;
    }
    const changes = {
      ...(url.trim() !== endpoint.url ? { url: url.trim() } : {}),
      ...(events.join() !== endpoint.events.join() ? { events } : {}),
      ...(enabled !== endpoint.enabled ? { enabled } : {}),
    };
    if (Object.keys(changes).length === 0) return onSaved?.();
    update.mutate({ id: endpoint.id, changes }, { onSuccess: () => onSaved?.() });
  };
  return (
    <form className="form" onSubmit={submit}>
      <TextField
        label="URL"
        type="url"
        required
        autoFocus
        hint="An http:// or https:// address on the public internet, without a user name or password."
        placeholder="https://example.com/hooks/docwright"
        value={url}
        onChange={(event) => setUrl(event.target.value)}
      />
      <fieldset className="fieldset">
        <legend className="field__label">Events</legend>
        {EVENT_TYPES.map((type) => (
          <CheckboxField
            key={type}
            label={
              <>
                <code>{type}</code>: {EVENTS[type]}
              </>
            }
            checked={events.includes(type)}
            onChange={(event) =>
              setEvents((current) =>
                event.target.checked
                  ? EVENT_TYPES.filter((t) => t === type || current.includes(t))
                  : current.filter((t) => t !== type),
              )
            }
          />
        ))}
      </fieldset>
      {endpoint && (
        <CheckboxField
          label="Receive new events (unchecked: paused, events that happen meanwhile are skipped)"
          checked={enabled}
          onChange={(event) => setEnabled(event.target.checked)}
        />
      )}
      <FormError error={mutation.error} />
      <div className="dialog__actions">
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={mutation.isPending} disabled={events.length === 0}>
          {endpoint ? 'Save changes' : 'Add endpoint'}
        </Button>
      </div>
    </form>
  );
}

/** Asks before rotating; the new secret is then shown once, by the page. */
export function RotateSecretDialog({
  projectId,
  endpoint,
  onClose,
  onRotated,
}: {
  projectId: string;
  endpoint: WebhookEndpointPayload | null;
  onClose: () => void;
  onRotated: (rotated: CreatedWebhookPayload) => void;
}) {
  const rotate = useRotateSecret(projectId);
  const close = () => {
    rotate.reset();
    onClose();
  };
  return (
    <ConfirmDialog
      open={endpoint !== null}
      title="Rotate the signing secret?"
      confirmLabel="Rotate secret"
      busy={rotate.isPending}
      error={rotate.error}
      onCancel={close}
      onConfirm={() => {
        if (!endpoint) return;
        rotate.mutate(endpoint.id, {
          onSuccess: (rotated) => {
            onRotated(rotated);
            close();
          },
        });
      }}
    >
      <p>
        <code className="break-all">{endpoint?.url}</code> gets a new secret, shown once. For 24 hours each
        delivery is signed with both the new and the current secret, so your receiver can switch without
        losing events; after that only the new one signs. Rotating again within the 24 hours stops the oldest
        secret at once.
      </p>
    </ConfirmDialog>
  );
}

/** The signing secret, once (at creation or rotation): Docwright keeps it encrypted and never shows it again. */
export function NewSecret({ created, onDismiss }: { created: CreatedWebhookPayload; onDismiss: () => void }) {
  return (
    <section className="callout callout--warning" aria-label="New signing secret">
      <p className="callout__title">
        <WarningIcon /> Copy the signing secret now: it is shown only once.
      </p>
      <div className="copy-row">
        <code className="copy-row__value" data-testid="new-secret">
          {created.secret}
        </code>
        <CopyButton value={created.secret} what="signing secret" />
      </div>
      {created.previousSecretExpiresAt ? (
        <p>
          Until <DateTime iso={created.previousSecretExpiresAt} />, each delivery to{' '}
          <code className="break-all">{created.url}</code> carries two signatures (
          <code>v1=&lt;new&gt;,v1=&lt;old&gt;</code>): give your receiver the new secret beside the old one,
          then drop the old one before then (see docs/webhooks.md).
        </p>
      ) : (
        <p>
          Your receiver checks each delivery's <code>Docwright-Signature</code> with it (see
          docs/webhooks.md). If it is lost, rotate it.
        </p>
      )}
      <Button onClick={onDismiss}>I have stored it</Button>
    </section>
  );
}
