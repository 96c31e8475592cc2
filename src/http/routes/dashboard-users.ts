import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { ROLES } from '../../domain/access/principal.ts';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../domain/users/account-fields.ts';
import { type SignInLinks, signInLinkUrl } from '../../domain/users/sign-in-links.ts';
import type { UserService } from '../../domain/users/user-service.ts';
import { changeDocs, dashboardBodyErrors, dashboardErrors, NoContent, readDocs } from './dashboard-docs.ts';

export interface DashboardUserRoutesOptions {
  users: UserService;
  links: SignInLinks;
  publicUrl: string;
}

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const User = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Type.Enum([...ROLES]),
  createdAt: Type.String({ format: 'date-time' }),
  lastSignInAt: Nullable(Type.String({ format: 'date-time' })),
  hasPassword: Type.Boolean({
    description: 'False until the account sets a password through its sign-in link.',
  }),
});
export type UserType = Static<typeof User>;

const UserParams = Type.Object({ userId: Type.String({ minLength: 1, maxLength: 64 }) });
const Role = Type.Enum([...ROLES], {
  description:
    'viewer: sees everything; admin: also changes jobs, keys and settings; owner: also accounts and projects.',
});
const Password = Type.String({
  minLength: MIN_PASSWORD_LENGTH,
  maxLength: MAX_PASSWORD_LENGTH,
  description: `At least ${MIN_PASSWORD_LENGTH} characters. Never shown back.`,
});

export const NewUserBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.Optional(Password),
  role: Role,
});

export const UserChangeBody = Type.Object({ role: Type.Optional(Role), password: Type.Optional(Password) });

export const SignInLink = Type.Object({
  url: Type.String({ description: '<public URL>/sign-in/link#token=dwl_…' }),
  expiresAt: Type.String({ format: 'date-time' }),
});

const manage = { permission: 'manage' as const };

/** `/dashboard/api/users`: accounts, for owners. */
export const dashboardUserRoutes: FastifyPluginAsyncTypebox<DashboardUserRoutesOptions> = async (
  app,
  options,
) => {
  const { users, links, publicUrl } = options;

  app.get(
    '/users',
    {
      config: manage,
      schema: {
        summary: 'List accounts',
        ...readDocs,
        response: { 200: Type.Object({ users: Type.Array(User) }), ...dashboardErrors },
      },
    },
    async () => ({ users: await users.list() }),
  );

  app.post(
    '/users',
    {
      config: manage,
      schema: {
        summary: 'Create an account',
        description:
          'Without a password, the account signs in first with a sign-in link (POST …/users/{userId}/sign-in-link), which sets one. 409 when the email is taken.',
        ...changeDocs,
        body: NewUserBody,
        response: { 201: User, ...dashboardBodyErrors },
      },
    },
    async (request, reply) => reply.code(201).send(await users.create(request.body)),
  );

  app.patch(
    '/users/:userId',
    {
      config: manage,
      schema: {
        summary: "Change an account's role or password",
        description:
          "A new password ends the sessions of the account (but the caller's own). The last owner cannot be demoted (409).",
        ...changeDocs,
        params: UserParams,
        body: UserChangeBody,
        response: { 200: User, ...dashboardBodyErrors },
      },
    },
    (request) =>
      users.update(request.params.userId, request.body, {
        keepSessionId: request.accountSession?.principal.sessionId,
      }),
  );

  app.delete(
    '/users/:userId',
    {
      config: manage,
      schema: {
        summary: 'Delete an account',
        description: 'Its sessions end. The last owner cannot be deleted (409).',
        ...changeDocs,
        params: UserParams,
        response: { 204: NoContent, 409: dashboardBodyErrors[409], ...dashboardErrors },
      },
    },
    async (request, reply) => {
      await users.delete(request.params.userId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/users/:userId/sign-in-link',
    {
      config: manage,
      schema: {
        summary: 'Make a one-time sign-in link for an account',
        description:
          'Valid 24 hours, once. For a new account it sets the email and password; for another, it signs in (and may set a new password). Hand it over privately: whoever has it can sign in.',
        ...changeDocs,
        params: UserParams,
        response: {
          201: SignInLink,
          ...dashboardErrors,
        },
      },
    },
    async (request, reply) => {
      const link = await links.create(request.params.userId);
      return reply.code(201).send({ url: signInLinkUrl(publicUrl, link.token), expiresAt: link.expiresAt });
    },
  );
};
