/**
 * Who is calling and what they may do: the one place where API key scopes and account roles
 * turn into permissions. Routes name the permission they need; they never test a scope or a
 * role themselves.
 */

/** `admin`: everything in its project; `read`: reads only; `ingest`: sends analytics events only. */
export const KEY_SCOPES = ['admin', 'read', 'ingest'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** `viewer`: sees jobs and analytics; `admin`: also changes them, keys and settings; `owner`: also accounts and projects. */
export const ROLES = ['owner', 'admin', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/**
 * - `read`: see jobs, conversations, analytics and settings;
 * - `write`: create and change jobs, keys, settings; merge;
 * - `ingest`: send analytics events;
 * - `manage`: manage accounts and create or delete projects.
 */
export type Permission = 'read' | 'write' | 'ingest' | 'manage';

/** An API key: it belongs to one project. */
export interface KeyPrincipal {
  kind: 'key';
  keyId: string;
  projectId: string;
  scope: KeyScope;
}

/** A person signed in to the dashboard: an account sees every project, as its role allows. */
export interface UserPrincipal {
  kind: 'user';
  userId: string;
  sessionId: string;
  email: string;
  role: Role;
}

export type Principal = KeyPrincipal | UserPrincipal;

const BY_SCOPE: Record<KeyScope, readonly Permission[]> = {
  admin: ['read', 'write', 'ingest'],
  read: ['read'],
  ingest: ['ingest'],
};

const BY_ROLE: Record<Role, readonly Permission[]> = {
  owner: ['read', 'write', 'ingest', 'manage'],
  admin: ['read', 'write', 'ingest'],
  viewer: ['read'],
};

export function permissionsOf(principal: Principal): readonly Permission[] {
  return principal.kind === 'key' ? BY_SCOPE[principal.scope] : BY_ROLE[principal.role];
}

export function permits(principal: Principal, permission: Permission): boolean {
  return permissionsOf(principal).includes(permission);
}

/** Whether the principal may act on the project at all (before its permission is asked). */
export function reachesProject(principal: Principal, projectId: string): boolean {
  return principal.kind === 'user' || principal.projectId === projectId;
}

export function isKeyScope(value: string): value is KeyScope {
  return (KEY_SCOPES as readonly string[]).includes(value);
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}
