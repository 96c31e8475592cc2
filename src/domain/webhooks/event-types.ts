/** The events an endpoint can subscribe to. `automation.run_completed` waits for automations. */
export const WEBHOOK_EVENT_TYPES = [
  'job.created',
  'job.completed',
  'job.failed',
  'job.archived',
  'job.pull_request_opened',
  'automation.run_completed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What `POST …/webhooks/{id}/test` sends: to that endpoint only, whatever it subscribes to. */
export const TEST_EVENT_TYPE = 'webhook.test';

export type DeliveredEventType = WebhookEventType | typeof TEST_EVENT_TYPE;

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}
