/**
 * The payloads the dashboard exchanges with the server. Each is the `Static` type of the server's
 * own TypeBox schema, imported as a type only: nothing of the server reaches the bundle, and a
 * schema change breaks the dashboard's type check instead of the page.
 */
import type { Static } from 'typebox';
import type {
  Automation,
  AutomationRun,
  AutomationWithSecret,
  createAutomationBody,
  TriggeredRun,
  updateAutomationBody,
} from '../../http/automation-schemas.ts';
import type {
  ConnectContextRepositoryBody,
  ContextRepository,
} from '../../http/context-repository-schemas.ts';
import type { CreatedKey, KeyInfo, KeyList, NewKeyBody } from '../../http/routes/dashboard-keys.ts';
import type {
  CheckedProject,
  NewProjectBody,
  Project,
  ProjectChangeBody,
} from '../../http/routes/dashboard-projects.ts';
import type {
  PasswordChangeBody,
  RedeemLinkBody,
  SessionView,
  SignInBody,
} from '../../http/routes/dashboard-session.ts';
import type { Settings, SettingsChange } from '../../http/routes/dashboard-settings.ts';
import type { NewUserBody, SignInLink, User, UserChangeBody } from '../../http/routes/dashboard-users.ts';
import type { BranchReview, Conversation, ErrorBody, Job, JobList } from '../../http/schemas.ts';
import type {
  CreateWebhookBody,
  UpdateWebhookBody,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from '../../http/webhook-schemas.ts';

export type ErrorPayload = Static<typeof ErrorBody>;
export type JobPayload = Static<typeof Job>;
export type JobListPayload = Static<typeof JobList>;
export type ConversationPayload = Static<typeof Conversation>;
export type BranchReviewPayload = Static<typeof BranchReview>;

export type SessionPayload = Static<typeof SessionView>;
export type SessionUser = SessionPayload['user'];
export type Role = SessionUser['role'];
export type SignInPayload = Static<typeof SignInBody>;
export type RedeemLinkPayload = Static<typeof RedeemLinkBody>;
export type PasswordChangePayload = Static<typeof PasswordChangeBody>;

export type UserPayload = Static<typeof User>;
export type UserListPayload = { users: UserPayload[] };
export type NewUserPayload = Static<typeof NewUserBody>;
export type UserChangePayload = Static<typeof UserChangeBody>;
export type SignInLinkPayload = Static<typeof SignInLink>;

export type ProjectPayload = Static<typeof Project>;
export type ProjectListPayload = { projects: ProjectPayload[] };
export type NewProjectPayload = Static<typeof NewProjectBody>;
export type ProjectChangePayload = Static<typeof ProjectChangeBody>;
export type CheckedProjectPayload = Static<typeof CheckedProject>;

export type ContextRepositoryPayload = Static<typeof ContextRepository>;
export type ContextRepositoryListPayload = { repositories: ContextRepositoryPayload[] };
export type NewContextRepositoryPayload = Static<typeof ConnectContextRepositoryBody>;
export type ConnectedContextRepositoryPayload = { repository: ContextRepositoryPayload; warnings: string[] };

export type SettingsPayload = Static<typeof Settings>;
export type SettingsChangePayload = Static<typeof SettingsChange>;
export type CodeHostKind = NonNullable<SettingsPayload['agent']['codeHost']>['kind'];

export type KeyInfoPayload = Static<typeof KeyInfo>;
export type KeyListPayload = Static<typeof KeyList>;
export type NewKeyPayload = Static<typeof NewKeyBody>;
export type CreatedKeyPayload = Static<typeof CreatedKey>;
export type KeyScope = KeyInfoPayload['scope'];

export type WebhookEndpointPayload = Static<typeof WebhookEndpoint>;
export type WebhookEndpointListPayload = { webhooks: WebhookEndpointPayload[] };
export type CreatedWebhookPayload = Static<typeof WebhookEndpointWithSecret>;
export type NewWebhookPayload = Static<typeof CreateWebhookBody>;
export type WebhookChangesPayload = Static<typeof UpdateWebhookBody>;
export type WebhookEventType = WebhookEndpointPayload['events'][number];
export type WebhookDeliveryPayload = Static<typeof WebhookDelivery>;
export type WebhookDeliveryListPayload = { deliveries: WebhookDeliveryPayload[] };

export type AutomationPayload = Static<typeof Automation>;
export type AutomationListPayload = { automations: AutomationPayload[] };
export type CreatedAutomationPayload = Static<typeof AutomationWithSecret>;
export type NewAutomationPayload = Static<ReturnType<typeof createAutomationBody>>;
export type AutomationChangePayload = Static<ReturnType<typeof updateAutomationBody>>;
export type AutomationTriggerKind = AutomationPayload['trigger']['kind'];
export type AutomationRunPayload = Static<typeof AutomationRun>;
export type AutomationRunListPayload = { runs: AutomationRunPayload[]; nextCursor: string | null };
export type TriggeredRunPayload = Static<typeof TriggeredRun>;
