import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, seg } from './client.ts';
import type {
  NewUserPayload,
  SignInLinkPayload,
  UserChangePayload,
  UserListPayload,
  UserPayload,
} from './types.ts';

const usersKey = ['users'] as const;

export function useUsers() {
  return useQuery({
    queryKey: usersKey,
    queryFn: () => api.get<UserListPayload>('/users'),
    select: (list) => list.users,
  });
}

function useUserMutation<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: usersKey }),
  });
}

export const useCreateUser = () =>
  useUserMutation((body: NewUserPayload) => api.post<UserPayload>('/users', body));
export const useUpdateUser = () =>
  useUserMutation(({ userId, change }: { userId: string; change: UserChangePayload }) =>
    api.patch<UserPayload>(`/users/${seg(userId)}`, change),
  );
export const useDeleteUser = () => useUserMutation((userId: string) => api.delete(`/users/${seg(userId)}`));
export const useSignInLink = () =>
  useUserMutation((userId: string) => api.post<SignInLinkPayload>(`/users/${seg(userId)}/sign-in-link`));
