import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, setCsrfToken } from './client.ts';
import type { PasswordChangePayload, RedeemLinkPayload, SessionPayload, SignInPayload } from './types.ts';

export const sessionKey = ['session'] as const;

/** The signed-in account, or null when signed out (401 is an answer here, not an error). */
async function fetchSession(): Promise<SessionPayload | null> {
  try {
    const session = await api.get<SessionPayload>('/session', { quiet401: true });
    setCsrfToken(session.csrfToken);
    return session;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      setCsrfToken(null);
      return null;
    }
    throw error;
  }
}

export function useSession() {
  return useQuery({ queryKey: sessionKey, queryFn: fetchSession, staleTime: 5 * 60_000 });
}

function useSessionMutation<Body>(path: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Body) => api.post<SessionPayload>(path, body, { quiet401: true }),
    onSuccess: (session) => {
      setCsrfToken(session.csrfToken);
      // What another account saw must not linger in the cache.
      queryClient.clear();
      queryClient.setQueryData(sessionKey, session);
    },
  });
}

export const useSignIn = () => useSessionMutation<SignInPayload>('/session');
export const useRedeemLink = () => useSessionMutation<RedeemLinkPayload>('/sign-in-links/redeem');

/**
 * Sign out of this browser, or (everywhere) end every session of the account. The caller leaves
 * the signed-in pages first and then calls `forgetSession`, so they do not ask to come back.
 */
export function useSignOut() {
  return useMutation({
    mutationFn: (everywhere: boolean) =>
      everywhere ? api.post<void>('/session/sign-out-everywhere') : api.delete('/session'),
  });
}

/** Changes the signed-in account's own password; its other sessions end, this one stays. */
export function useChangePassword() {
  return useMutation({
    mutationFn: (body: PasswordChangePayload) => api.post<void>('/session/password', body),
  });
}

/** Drops the account's session and everything it saw from the cache. */
export function forgetSession(queryClient: QueryClient): void {
  setCsrfToken(null);
  queryClient.clear();
  queryClient.setQueryData(sessionKey, null);
}
