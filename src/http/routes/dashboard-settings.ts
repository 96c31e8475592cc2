import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { SALT_ROTATIONS } from '../../domain/analytics/identity.ts';
import { CODE_HOST_KINDS } from '../../domain/projects/code-host-settings.ts';
import type { ProjectSettingsOverview } from '../../domain/projects/settings-overview.ts';
import { ProjectParams } from '../schemas.ts';
import { changeDocs, dashboardBodyErrors, dashboardErrors, readDocs } from './dashboard-docs.ts';

export interface DashboardSettingsRoutesOptions {
  settings: ProjectSettingsOverview;
}

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const Settings = Type.Object({
  agent: Type.Object({
    model: Nullable(Type.String({ description: "provider:model-id; null: the server's default model." })),
    draft: Type.Boolean({ description: 'Open pull requests as drafts.' }),
    webResearch: Type.Boolean({
      description: 'The agent may read web pages (its fetch_url tool), under the outgoing-network policy.',
    }),
    monthlyBudgetUsd: Nullable(
      Type.Number({
        description:
          "US dollars the project's turns may spend per calendar month (UTC), estimated; once reached, new jobs and messages are refused (402) and queued turns fail. null: no budget.",
      }),
    ),
    codeHost: Nullable(
      Type.Object({
        kind: Type.Enum([...CODE_HOST_KINDS]),
        apiUrl: Nullable(Type.String()),
        repository: Nullable(Type.String({ description: 'owner/name on the code host.' })),
        credentials: Type.Enum(['stored', 'none'], {
          description: 'Whether a token is stored (encrypted); it is never shown back.',
        }),
      }),
    ),
  }),
  analytics: Type.Object({
    allowedOrigins: Type.Array(Type.String()),
    countAiCrawlersAsAi: Type.Boolean(),
    saltRotation: Nullable(
      Type.Enum([...SALT_ROTATIONS], { description: "The project's own rotation; null: the server's." }),
    ),
  }),
  server: Type.Object(
    {
      defaultModel: Nullable(Type.String({ description: 'DOCWRIGHT_MODEL.' })),
      saltRotation: Type.Enum([...SALT_ROTATIONS], { description: 'DOCWRIGHT_ANALYTICS_SALT_ROTATION.' }),
      publicUrl: Type.String({ description: 'DOCWRIGHT_PUBLIC_URL.' }),
    },
    { description: "The server's configuration: read-only here." },
  ),
  spend: Type.Object(
    {
      month: Type.String({ description: 'The current calendar month in UTC, e.g. 2026-11.' }),
      budgetUsd: Nullable(Type.Number({ description: 'agent.monthlyBudgetUsd.' })),
      spentUsd: Type.Number({ description: "Estimated US dollars of this month's turns that have a price." }),
      unpricedTurns: Type.Integer({
        description: "This month's turns whose model has no price: not in spentUsd.",
      }),
      resetsOn: Type.String({
        description: 'First day of the next month (UTC), when spending starts again from 0.',
      }),
      budgetSpent: Type.Boolean({ description: 'The budget is reached: new turns are refused.' }),
    },
    { description: "This month's estimated spend against the budget: read-only." },
  ),
});
export type SettingsType = Static<typeof Settings>;

export const SettingsChange = Type.Object({
  agent: Type.Optional(
    Type.Object({
      model: Type.Optional(Nullable(Type.String({ maxLength: 200, description: 'null: use the default.' }))),
      draft: Type.Optional(Type.Boolean()),
      webResearch: Type.Optional(Type.Boolean({ description: 'Let the agent read web pages (fetch_url).' })),
      monthlyBudgetUsd: Type.Optional(
        Nullable(
          Type.Number({
            minimum: 0,
            maximum: 1_000_000_000,
            description: 'US dollars per calendar month (UTC), rounded to cents; null removes the budget.',
          }),
        ),
      ),
      host: Type.Optional(Nullable(Type.Enum([...CODE_HOST_KINDS]))),
      apiUrl: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
      hostRepository: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
      token: Type.Optional(
        Nullable(
          Type.String({
            pattern: '\\S',
            maxLength: 10_000,
            description:
              'Write-only: stored encrypted (the server needs DOCWRIGHT_SECRET_KEY), shown back only as credentials: "stored". null forgets it.',
          }),
        ),
      ),
    }),
  ),
  analytics: Type.Optional(
    Type.Object({
      allowedOrigins: Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 100 })),
      countAiCrawlersAsAi: Type.Optional(Type.Boolean()),
      saltRotation: Type.Optional(Nullable(Type.Enum([...SALT_ROTATIONS]))),
    }),
  ),
});

/** `/dashboard/api/projects/{projectId}/settings`: agent, analytics and (read-only) server settings. */
export const dashboardSettingsRoutes: FastifyPluginAsyncTypebox<DashboardSettingsRoutesOptions> = async (
  app,
  { settings },
) => {
  app.get(
    '/projects/:projectId/settings',
    {
      schema: {
        summary: "A project's settings",
        ...readDocs,
        params: ProjectParams,
        response: { 200: Settings, ...dashboardErrors },
      },
    },
    (request) => settings.show(request.params.projectId),
  );

  app.patch(
    '/projects/:projectId/settings',
    {
      schema: {
        summary: "Change a project's settings",
        description: 'Absent fields stay as they are. A refused change (400) changes nothing.',
        ...changeDocs,
        params: ProjectParams,
        body: SettingsChange,
        response: { 200: Settings, ...dashboardBodyErrors },
      },
    },
    (request) => settings.update(request.params.projectId, request.body),
  );
};
