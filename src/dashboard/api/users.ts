import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, seg } from './client.ts';
import type { NewUserBody, SignInLink, UserChangeBody, UserList, UserRow } from './types.ts';

const usersKey = ['users'] as const;

export function useUsers() {
  return useQuery({
    queryKey: usersKey,
    queryFn: () => api.get<UserList>('/users'),
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

export const useCreateUser = () => useUserMutation((body: NewUserBody) => api.post<UserRow>('/users', body));
export const useUpdateUser = () =>
  useUserMutation(({ userId, change }: { userId: string; change: UserChangeBody }) =>
    api.patch<UserRow>(`/users/${seg(userId)}`, change),
  );
export const useDeleteUser = () => useUserMutation((userId: string) => api.delete(`/users/${seg(userId)}`));
export const useSignInLink = () =>
  useUserMutation((userId: string) => api.post<SignInLink>(`/users/${seg(userId)}/sign-in-link`));
