import { createContext, useContext } from 'react';
import { type Capability, can } from '../api/permissions.ts';
import type { SessionUser } from '../api/types.ts';

export const CurrentUserContext = createContext<SessionUser | null>(null);

/** The signed-in account; only inside the signed-in part of the application. */
export function useCurrentUser(): SessionUser {
  const user = useContext(CurrentUserContext);
  if (!user) throw new Error('useCurrentUser outside a signed-in page');
  return user;
}

/** Whether the signed-in account's role offers this (the server checks again). */
export function useCan(capability: Capability): boolean {
  return can(useCurrentUser().role, capability);
}
