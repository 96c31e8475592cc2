import { useRotateHookSecret } from '../../api/automations.ts';
import type { AutomationPayload, CreatedAutomationPayload } from '../../api/types.ts';
import { Button } from '../../components/button.tsx';
import { CopyButton } from '../../components/copy-button.tsx';
import { ConfirmDialog } from '../../components/dialog.tsx';
import { DateTime } from '../../components/format.tsx';
import { WarningIcon } from '../../components/icons.tsx';

/**
 * A code-change automation's webhook URL and secret, once (at creation or rotation): Docwright
 * keeps the secret encrypted and never shows it again.
 */
export function NewHookSecret({
  created,
  onDismiss,
}: {
  created: CreatedAutomationPayload;
  onDismiss: () => void;
}) {
  const { trigger } = created;
  const github = trigger.provider !== 'gitlab';
  const secretName = github ? 'Secret' : 'Secret token';
  const rotated = Boolean(created.previousSecretExpiresAt);
  return (
    <section className="callout callout--warning" aria-label="New webhook secret">
      <p className="callout__title">
        <WarningIcon />{' '}
        {rotated
          ? `Enter the new secret in the webhook of ${trigger.repository} now: it is shown only once.`
          : `Add this webhook to ${trigger.repository} now: the secret is shown only once.`}
      </p>
      <p>
        Payload URL
        {github ? ' (content type application/json, the "Pull requests" event)' : ' ("Merge request events")'}
        :
      </p>
      <div className="copy-row">
        <code className="copy-row__value break-all" data-testid="hook-url">
          {trigger.hookUrl}
        </code>
        <CopyButton value={trigger.hookUrl ?? ''} what="webhook URL" />
      </div>
      <p>{secretName}:</p>
      <div className="copy-row">
        <code className="copy-row__value" data-testid="hook-secret">
          {created.webhookSecret}
        </code>
        <CopyButton value={created.webhookSecret ?? ''} what="webhook secret" />
      </div>
      {created.previousSecretExpiresAt ? (
        <p>
          Webhooks signed with the old secret are accepted until{' '}
          <DateTime iso={created.previousSecretExpiresAt} />: change the webhook's {secretName} before then.
        </p>
      ) : (
        <p>If it is lost, rotate it.</p>
      )}
      <Button onClick={onDismiss}>{rotated ? 'I have changed it' : 'I have added it'}</Button>
    </section>
  );
}

/** Asks before rotating; the new secret is then shown once, by the page. */
export function RotateHookSecretDialog({
  projectId,
  automation,
  onClose,
  onRotated,
}: {
  projectId: string;
  automation: AutomationPayload | null;
  onClose: () => void;
  onRotated: (rotated: CreatedAutomationPayload) => void;
}) {
  const rotate = useRotateHookSecret(projectId);
  const close = () => {
    rotate.reset();
    onClose();
  };
  const host = automation?.trigger.provider === 'gitlab' ? 'GitLab' : 'GitHub';
  return (
    <ConfirmDialog
      open={automation !== null}
      title="Rotate the webhook secret?"
      confirmLabel="Rotate secret"
      busy={rotate.isPending}
      error={rotate.error}
      onCancel={close}
      onConfirm={() => {
        if (!automation) return;
        rotate.mutate(automation.id, {
          onSuccess: (rotated) => {
            onRotated(rotated);
            close();
          },
        });
      }}
    >
      <p>
        <strong>{automation?.name}</strong> gets a new webhook secret, shown once. For 24 hours webhooks
        signed with the current secret are still accepted, so you can change it in {host} without missing a
        merge; after that only the new one is. Rotating again within the 24 hours stops the oldest secret at
        once.
      </p>
    </ConfirmDialog>
  );
}
