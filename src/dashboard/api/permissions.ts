import type { Role } from './types.ts';

/**
 * What the interface offers each role. It only hides what a role cannot do: the server decides
 * (src/domain/access/principal.ts) and refuses anyway. viewer: reads; admin: also writes (jobs,
 * keys, settings, merges); owner: also manages accounts and projects.
 */
export type Capability = 'read' | 'write' | 'manage';

const BY_ROLE: Record<Role, readonly Capability[]> = {
  viewer: ['read'],
  admin: ['read', 'write'],
  owner: ['read', 'write', 'manage'],
};

export const can = (role: Role, capability: Capability): boolean => BY_ROLE[role].includes(capability);
