import { type Static, Type } from 'typebox';
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from '../domain/webhooks/event-types.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const Timestamp = (description: string) => Type.String({ format: 'date-time', description });

const EventType = Type.Enum([...WEBHOOK_EVENT_TYPES]);

const EndpointFields = {
  id: Type.String({ description: 'The endpoint id (whk_…).' }),
  url: Type.String({ description: 'Where deliveries are POSTed.' }),
  events: Type.Array(EventType, { description: 'The event types it receives.' }),
  enabled: Type.Boolean({
    description: 'False when paused: new events are not queued for it (skipped, not held back).',
  }),
  previousSecretExpiresAt: Nullable(
    Timestamp(
      'After a secret rotation: until when the replaced secret still signs deliveries beside the new one (a second v1). Null when only one secret signs.',
    ),
  ),
  createdAt: Timestamp('When the endpoint was created.'),
  updatedAt: Nullable(Timestamp('When its URL, events, enabled flag or secret last changed.')),
};

export const WebhookEndpoint = Type.Object(EndpointFields, { $id: 'WebhookEndpoint' });

export const WebhookEndpointWithSecret = Type.Object(
  {
    ...EndpointFields,
    secret: Type.String({
      description:
        'The signing secret (whsec_…), shown this once (at creation or rotation): store it where the receiver can read it. Docwright keeps it encrypted and never returns it again.',
    }),
  },
  { $id: 'WebhookEndpointWithSecret' },
);

export const WebhookEndpointList = Type.Object(
  { webhooks: Type.Array(Type.Ref('WebhookEndpoint')) },
  { $id: 'WebhookEndpointList' },
);

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ description: 'The delivery id, sent as Docwright-Delivery.' }),
    eventId: Type.String({
      description: "The event id (the body's id): the same in every endpoint's delivery of it.",
    }),
    type: Type.Enum([...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE]),
    status: Type.Enum(['pending', 'succeeded', 'failed'], {
      description:
        'pending: queued or waiting for a retry; succeeded: answered 2xx; failed: no 2xx within the retry window.',
    }),
    attempts: Type.Integer({ minimum: 0 }),
    nextAttemptAt: Nullable(Timestamp('When a pending delivery is tried next.')),
    lastResponseCode: Nullable(
      Type.Integer({ description: "The last attempt's HTTP status; null if none came." }),
    ),
    lastError: Nullable(Type.String({ description: 'Why the last attempt failed.' })),
    createdAt: Timestamp('When the event happened.'),
    updatedAt: Timestamp('When the delivery last changed.'),
    deliveredAt: Nullable(Timestamp('When a 2xx answer was recorded.')),
  },
  { $id: 'WebhookDelivery' },
);

export const WebhookDeliveryList = Type.Object(
  { deliveries: Type.Array(Type.Ref('WebhookDelivery'), { description: 'Newest first.' }) },
  { $id: 'WebhookDeliveryList' },
);

export const WEBHOOK_SCHEMAS = [
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookEndpointList,
  WebhookDelivery,
  WebhookDeliveryList,
];

export const CreateWebhookBody = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: 'An http:// or https:// URL without credentials, on a public address.',
    examples: ['https://example.com/hooks/docwright'],
  }),
  events: Type.Optional(
    Type.Array(EventType, {
      minItems: 1,
      maxItems: 20,
      description: 'The event types to receive; all of them when left out.',
    }),
  ),
});

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description: 'An http:// or https:// URL without credentials, on a public address.',
      }),
    ),
    events: Type.Optional(
      Type.Array(EventType, { minItems: 1, maxItems: 20, description: 'The event types to receive.' }),
    ),
    enabled: Type.Optional(
      Type.Boolean({
        description: 'false pauses the endpoint: new events are skipped for it; true resumes it.',
      }),
    ),
  },
  { minProperties: 1 },
);

export const WebhookParams = Type.Object({
  projectId: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.String({ minLength: 1, maxLength: 64, description: 'The webhook endpoint id.' }),
});

export const DeliveryParams = Type.Object({
  projectId: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.String({ minLength: 1, maxLength: 64, description: 'The webhook endpoint id.' }),
  deliveryId: Type.String({ minLength: 1, maxLength: 64 }),
});

export const DeliveryListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
});

export type WebhookEndpointType = Static<typeof WebhookEndpoint>;
export type WebhookEndpointWithSecretType = Static<typeof WebhookEndpointWithSecret>;
export type WebhookDeliveryType = Static<typeof WebhookDelivery>;
