import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { ROLES } from '../../domain/access/principal.ts';
import { DomainError } from '../../domain/errors.ts';
import type { AccountSession, SessionService } from '../../domain/sessions/session-service.ts';
import type { SignedIn, SignInService } from '../../domain/sessions/sign-in.ts';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../domain/users/account-fields.ts';
import { clientIpResolver } from '../client-ip.ts';
import { clearSessionCookie, setSessionCookie } from '../session-auth.ts';
import {
  changeDocs,
  dashboardBodyErrors,
  dashboardErrors,
  NoContent,
  readDocs,
  signInDocs,
} from './dashboard-docs.ts';

export interface DashboardSessionRoutesOptions {
  sessions: SessionService;
  signIn: SignInService;
  publicUrl: string;
  /** Proxies whose X-Forwarded-For is believed for the client address the sign-in limit counts. */
  trustedProxies: readonly string[];
}

const Timestamp = (description: string) => Type.String({ format: 'date-time', description });

export const SessionView = Type.Object({
  user: Type.Object({
    id: Type.String(),
    email: Type.String(),
    role: Type.Enum([...ROLES]),
    createdAt: Timestamp('When the account was created.'),
  }),
  csrfToken: Type.String({
    description: 'Send it as the X-CSRF-Token header with every POST, PATCH, PUT and DELETE.',
  }),
  expiresAt: Timestamp('When the session ends at the latest; it ends sooner after 24 hours unused.'),
});
export type SessionViewType = Static<typeof SessionView>;

const Password = (description: string) =>
  Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH, description });

export const SignInBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
});

export const RedeemLinkBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 100, description: 'The dwl_… token from the link.' }),
  email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
  password: Type.Optional(Password(`At least ${MIN_PASSWORD_LENGTH} characters.`)),
});

export const PasswordChangeBody = Type.Object({
  currentPassword: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
  password: Password(`The new password: at least ${MIN_PASSWORD_LENGTH} characters.`),
});

const tooMany = Type.Ref('Error', {
  description:
    'Too many failed sign-ins for this account or from this address; Retry-After says when to try again.',
});

/**
 * `/dashboard/api/session` and sign-in links: sign in (the cookie is set), see the session
 * (with its CSRF token), sign out, sign out everywhere.
 */
export const dashboardSessionRoutes: FastifyPluginAsyncTypebox<DashboardSessionRoutesOptions> = async (
  app,
  options,
) => {
  const { sessions, signIn, publicUrl } = options;
  const resolveIp = clientIpResolver(options.trustedProxies);
  // A request whose socket is gone has no address; it gets no answer either, so any key will do.
  const clientIp = (request: FastifyRequest) => resolveIp(request) ?? 'unknown';

  function signedIn(reply: FastifyReply, { token, session }: SignedIn) {
    setSessionCookie(reply, publicUrl, token, sessions.absoluteSeconds);
    return view(session);
  }

  app.get(
    '/session',
    {
      schema: {
        summary: 'The signed-in account and its CSRF token',
        ...readDocs,
        response: { 200: SessionView, ...dashboardErrors },
      },
    },
    (request) => view(signedInSession(request.accountSession)),
  );

  app.post(
    '/session',
    {
      config: { anonymous: true },
      schema: {
        summary: 'Sign in',
        description:
          'Checks the email and password and sets the session cookie. A wrong email and a wrong password get the same 401. Failed sign-ins are limited per account (10) and per client address (50) per 15 minutes: 429 with Retry-After.',
        ...signInDocs,
        body: SignInBody,
        response: { 200: SessionView, 429: tooMany, ...dashboardBodyErrors },
      },
    },
    async (request, reply) =>
      signedIn(
        reply,
        await signIn.signIn(request.body.email, request.body.password, clientIp(request) ?? 'unknown'),
      ),
  );

  app.delete(
    '/session',
    {
      // Every account may sign itself out.
      config: { permission: 'read' },
      schema: {
        summary: 'Sign out',
        ...changeDocs,
        response: { 204: NoContent, ...dashboardErrors },
      },
    },
    async (request, reply) => {
      await sessions.revoke(signedInToken(request.sessionToken));
      clearSessionCookie(reply, publicUrl);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/session/sign-out-everywhere',
    {
      config: { permission: 'read' },
      schema: {
        summary: 'Sign out everywhere',
        description: 'Ends every session of the signed-in account, this one included.',
        ...changeDocs,
        response: { 204: NoContent, ...dashboardErrors },
      },
    },
    async (request, reply) => {
      await sessions.revokeAll(signedInSession(request.accountSession).user.id);
      clearSessionCookie(reply, publicUrl);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/session/password',
    {
      // Every account may change its own password.
      config: { permission: 'read' },
      schema: {
        summary: 'Change your own password',
        description:
          "Checks the current password (failures count like failed sign-ins: 429 with Retry-After over the limit), sets the new one and ends the account's other sessions; this one stays.",
        ...changeDocs,
        body: PasswordChangeBody,
        response: { 204: NoContent, 429: tooMany, ...dashboardBodyErrors },
      },
    },
    async (request, reply) => {
      await signIn.changeOwnPassword(
        signedInSession(request.accountSession),
        request.body,
        clientIp(request) ?? 'unknown',
      );
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/sign-in-links/redeem',
    {
      config: { anonymous: true },
      schema: {
        summary: 'Sign in with a one-time link',
        description:
          "Uses a sign-in link (`#token=dwl_…`, valid 24 hours, once) and sets the session cookie. An account without a password yet (a new one) needs `email` and `password`: they become its email and password. Otherwise `email`, if given, must be the account's, and `password`, if given, replaces its password (ending its other sessions).",
        ...signInDocs,
        body: RedeemLinkBody,
        response: { 200: SessionView, ...dashboardBodyErrors },
      },
    },
    async (request, reply) => {
      const { token, email, password } = request.body;
      return signedIn(reply, await signIn.redeem(token, { email, password }));
    },
  );
};

function view(session: AccountSession): SessionViewType {
  return { user: session.user, csrfToken: session.csrfToken, expiresAt: session.expiresAt };
}

// The session authenticator has run for these routes; these only narrow the types.
function signedInSession(session: AccountSession | null): AccountSession {
  if (!session) throw new DomainError('unauthenticated', 'Not signed in');
  return session;
}
function signedInToken(token: string | null): string {
  if (!token) throw new DomainError('unauthenticated', 'Not signed in');
  return token;
}
