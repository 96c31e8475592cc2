import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { KEY_SCOPES } from '../../domain/access/principal.ts';
import { MAX_ALLOWED_IPS } from '../../domain/keys/ip-allowlist.ts';
import {
  type ApiKeyInfo,
  EXPIRY_DAYS,
  type KeyService,
  MAX_KEY_NAME_LENGTH,
} from '../../domain/keys/key-service.ts';
import { ProjectParams } from '../schemas.ts';
import { changeDocs, dashboardBodyErrors, dashboardErrors, readDocs } from './dashboard-docs.ts';

export interface DashboardKeyRoutesOptions {
  keys: KeyService;
}

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

/** A key as the dashboard lists it: never the key itself, only its hint. */
export const KeyInfo = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scope: Type.Enum([...KEY_SCOPES]),
  hint: Type.String({ description: 'dw_… and the last four characters of the key.' }),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Nullable(Type.String({ format: 'date-time', description: 'Recorded at most once a minute.' })),
  expiresAt: Nullable(Type.String({ format: 'date-time', description: 'null: never expires.' })),
  allowedIps: Type.Array(Type.String(), {
    description: 'IP addresses and CIDR ranges the key may be used from, normalised; empty: anywhere.',
  }),
  revokedAt: Nullable(Type.String({ format: 'date-time' })),
});

export const KeyList = Type.Object(
  { keys: Type.Array(KeyInfo) },
  { description: "The project's keys, oldest first, revoked ones too." },
);

export const NewKeyBody = Type.Object({
  name: Type.String({
    minLength: 1,
    maxLength: MAX_KEY_NAME_LENGTH,
    pattern: '\\S',
    description: 'To tell keys apart.',
    examples: ['reporting'],
  }),
  scope: Type.Enum([...KEY_SCOPES], {
    description: 'admin: everything; read: every GET of the public API; ingest: analytics events only.',
  }),
  expiresInDays: Type.Optional(
    // The days as an enum: its static type is 7 | 30 | 60 | 90 (a mapped list of literals types as never).
    Type.Union([Type.Enum([...EXPIRY_DAYS]), Type.Null()], {
      description: 'Days until the key expires (default 90); null: never.',
      examples: [90],
    }),
  ),
  allowedIps: Type.Optional(
    Type.Array(Type.String({ maxLength: 64 }), {
      maxItems: MAX_ALLOWED_IPS,
      description: 'IP addresses and CIDR ranges the key may be used from; absent or empty: anywhere.',
      examples: [['203.0.113.0/24', '2001:db8::/32']],
    }),
  ),
});

export const CreatedKey = Type.Object(
  {
    key: Type.String({ description: 'The key itself: shown this once, never stored.' }),
    info: KeyInfo,
  },
  { description: 'The new key and what the list shows of it.' },
);

const KeyParams = Type.Object({
  projectId: Type.String({ minLength: 1, maxLength: 64 }),
  keyId: Type.String({ minLength: 1, maxLength: 64 }),
});

// Keys open the public API: seeing them (their names, scopes, allowlists) is for those who may change them.
const permission = 'write' as const;

/** `/dashboard/api/projects/{projectId}/keys…`: a project's API keys, for accounts that may change them. */
export const dashboardKeyRoutes: FastifyPluginAsyncTypebox<DashboardKeyRoutesOptions> = async (
  app,
  { keys },
) => {
  app.get(
    '/projects/:projectId/keys',
    {
      config: { permission },
      schema: {
        summary: "List a project's API keys",
        description:
          'Revoked keys too. Never the keys themselves, only a hint. Needs an admin or owner account.',
        ...readDocs,
        params: ProjectParams,
        response: { 200: KeyList, ...dashboardErrors },
      },
    },
    async (request) => ({ keys: (await keys.list(request.params.projectId)).map(shown) }),
  );

  app.post(
    '/projects/:projectId/keys',
    {
      config: { permission },
      schema: {
        summary: 'Create an API key',
        description:
          'The key is in this answer only: it is never stored and cannot be shown again. A bad allowedIps entry is a 400 that names it.',
        ...changeDocs,
        params: ProjectParams,
        body: NewKeyBody,
        response: { 201: CreatedKey, ...dashboardBodyErrors },
      },
    },
    async (request, reply) => {
      const created = await keys.create(request.params.projectId, request.body);
      return reply.code(201).send({ key: created.key, info: shown(created.info) });
    },
  );

  app.delete(
    '/projects/:projectId/keys/:keyId',
    {
      config: { permission },
      schema: {
        summary: 'Revoke an API key',
        description:
          'At once in this process, within 5 s in others. Revoking a revoked key changes nothing; a key of another project is 404.',
        ...changeDocs,
        params: KeyParams,
        response: {
          200: Type.Object(KeyInfo.properties, { description: 'The revoked key.' }),
          ...dashboardErrors,
        },
      },
    },
    async (request) => {
      const { projectId, keyId } = request.params;
      return shown(await keys.revoke(keyId, { projectId }));
    },
  );
};

function shown(info: ApiKeyInfo) {
  const { projectId: _inThePath, ...rest } = info;
  return rest;
}
