/**
 * The payloads the dashboard exchanges with the server. Each is the `Static` type of the server's
 * own TypeBox schema, imported as a type only: nothing of the server reaches the bundle, and a
 * schema change breaks the dashboard's type check instead of the page.
 */
import type { Static } from 'typebox';
import type { BranchReview, Conversation, ErrorBody, Job, JobList } from '../../http/schemas.ts';

export type ErrorPayload = Static<typeof ErrorBody>;
export type JobPayload = Static<typeof Job>;
export type JobListPayload = Static<typeof JobList>;
export type ConversationPayload = Static<typeof Conversation>;
export type BranchReviewPayload = Static<typeof BranchReview>;

// ---------------------------------------------------------------------------------------------
// Until the dashboard endpoints land (src/http/routes/dashboard-*.ts), the shapes below follow
// docs/dashboard.md; each is replaced by the Static type of its route's schema when it exists.
// ---------------------------------------------------------------------------------------------

export type Role = 'owner' | 'admin' | 'viewer';
export type KeyScope = 'admin' | 'read' | 'ingest';

export interface User {
  id: string;
  email: string;
  role: Role;
  createdAt: string;
}
export interface SessionPayload {
  user: User;
  csrfToken: string;
  expiresAt: string;
}
export interface SignInBody {
  email: string;
  password: string;
}
export interface RedeemLinkBody {
  token: string;
  email?: string;
  password?: string;
}

export interface UserRow extends User {
  lastSignInAt: string | null;
}
export interface UserList {
  users: UserRow[];
}
export interface NewUserBody {
  email: string;
  password: string;
  role: Role;
}
export interface UserChangeBody {
  role?: Role;
  password?: string;
}
export interface SignInLink {
  url: string;
  expiresAt: string;
}

export interface Project {
  id: string;
  name: string;
  repository: string;
  baseBranch: string;
  createdAt: string;
}
export interface ProjectList {
  projects: Project[];
}
export interface NewProjectBody {
  name: string;
  repository: string;
  baseBranch?: string;
}
export type ProjectChangeBody = Partial<NewProjectBody>;
export interface CheckedProject {
  project: Project;
  warnings: string[];
}

export type CodeHostKind = 'github' | 'gitlab' | 'local';
export interface ProjectSettings {
  agent: {
    model: string | null;
    draft: boolean;
    codeHost: {
      kind: CodeHostKind;
      apiUrl: string | null;
      repository: string | null;
      credentials: 'stored' | 'none';
    } | null;
  };
  analytics: { allowedOrigins: string[]; countAiCrawlersAsAi: boolean };
  server: { defaultModel: string | null; saltRotation: string; publicUrl: string };
}
export interface SettingsChangeBody {
  agent?: {
    model?: string | null;
    draft?: boolean;
    host?: CodeHostKind | null;
    apiUrl?: string | null;
    hostRepository?: string | null;
    token?: string;
  };
  analytics?: { allowedOrigins?: string[]; countAiCrawlersAsAi?: boolean };
}

export interface KeyInfo {
  id: string;
  name: string;
  scope: KeyScope;
  hint: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  allowedIps: string[];
  revokedAt: string | null;
}
export interface KeyList {
  keys: KeyInfo[];
}
export interface NewKeyBody {
  name: string;
  scope: KeyScope;
  expiresInDays: 7 | 30 | 60 | 90 | null;
  allowedIps?: string[];
}
export interface CreatedKey {
  key: string;
  info: KeyInfo;
}
