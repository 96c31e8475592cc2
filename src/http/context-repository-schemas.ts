import { type Static, Type } from 'typebox';
import { MAX_CONTEXT_REPOSITORIES } from '../domain/projects/context-repositories.ts';

const NAME_RULE =
  '1 to 63 lower-case letters, digits, ".", "_" or "-", starting with a letter or digit; unique in the project';

export const ContextRepository = Type.Object(
  {
    name: Type.String({ description: `What the agent calls it: ${NAME_RULE}.` }),
    repository: Type.String({ description: 'A git URL, or an absolute path on the server.' }),
    ref: Type.String({ description: 'The branch the agent reads.' }),
    createdAt: Type.String({ format: 'date-time', description: 'When it was connected (UTC).' }),
  },
  { $id: 'ContextRepository' },
);

export const ContextRepositoryList = Type.Object(
  {
    repositories: Type.Array(Type.Ref('ContextRepository'), {
      description: `By name; at most ${MAX_CONTEXT_REPOSITORIES}.`,
    }),
  },
  { $id: 'ContextRepositoryList' },
);

export const ConnectedContextRepository = Type.Object(
  {
    repository: Type.Ref('ContextRepository'),
    warnings: Type.Array(Type.String(), {
      description: 'What could not be checked yet, e.g. a remote that could not be reached now.',
    }),
  },
  { $id: 'ConnectedContextRepository' },
);

export const CONTEXT_REPOSITORY_SCHEMAS = [
  ContextRepository,
  ContextRepositoryList,
  ConnectedContextRepository,
];

const NonEmpty = (maxLength: number, description: string, example: string) =>
  Type.String({ pattern: '\\S', maxLength, description, examples: [example] });

export const ConnectContextRepositoryBody = Type.Object({
  // The rule itself is the service's: its message says what a name may be.
  name: NonEmpty(100, `${NAME_RULE}.`, 'api'),
  repository: NonEmpty(
    1000,
    'A git URL (credentials are refused in it), or a path on the server under DOCWRIGHT_LOCAL_REPOSITORY_ROOTS.',
    'https://github.com/acme/api.git',
  ),
  ref: Type.Optional(NonEmpty(255, 'The branch to read (default main).', 'main')),
});

export const ContextRepositoryParams = Type.Object({
  projectId: Type.String({ minLength: 1, maxLength: 64 }),
  name: Type.String({ minLength: 1, maxLength: 100, description: 'The connected repository name.' }),
});

export type ContextRepositoryType = Static<typeof ContextRepository>;
