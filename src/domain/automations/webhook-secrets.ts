import { randomBytes } from 'node:crypto';
import type { AutomationRow } from '../../storage/schema.ts';
import type { SecretBox } from '../secrets/secret-box.ts';

/** How long a secret replaced by a rotation is still accepted: time to update the host's settings. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** Sealed secrets are bound to their automation: copied to another row, they do not open. */
export const webhookSecretContext = (automationId: string) => `automation:${automationId}`;

/** 32 random bytes, base64url: what a person pastes into the host's webhook settings. */
export const newWebhookSecret = () => randomBytes(32).toString('base64url');

/**
 * The secrets a code-change webhook for this automation may be signed with: the current one,
 * and the one a rotation replaced while its overlap lasts.
 */
export function acceptedSecrets(box: SecretBox, row: AutomationRow, now: Date): string[] {
  if (row.webhook_secret === null) return [];
  const context = webhookSecretContext(row.id);
  const secrets = [box.open(row.webhook_secret, context)];
  const expires = row.previous_webhook_secret_expires_at;
  if (row.previous_webhook_secret !== null && expires !== null && Date.parse(expires) > now.getTime()) {
    secrets.push(box.open(row.previous_webhook_secret, context));
  }
  return secrets;
}
