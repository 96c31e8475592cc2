import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/domain/clock.ts';
import { OutboundPolicy } from '../../../src/domain/network/outbound-policy.ts';
import {
  ContextRepositoryService,
  MAX_CONTEXT_REPOSITORIES,
} from '../../../src/domain/projects/context-repositories.ts';
import { ProjectService } from '../../../src/domain/projects/project-service.ts';
import { GitRepositoryProbe } from '../../../src/integrations/git/repository-probe.ts';
import type { Storage } from '../../../src/storage/database.ts';
import { createRepository, tempDir } from '../../helpers/git-repos.ts';
import { openTestStorage, testBackend } from '../../helpers/storage.ts';

describe(`connected source repositories (${testBackend})`, () => {
  let storage: Storage;
  let cleanups: (() => Promise<void> | void)[] = [];
  let root: string;
  let service: ContextRepositoryService;
  let projectId: string;

  beforeEach(async () => {
    const db = await openTestStorage();
    storage = db.storage;
    cleanups.push(db.cleanup);
    const dir = tempDir();
    root = dir.dir;
    cleanups.push(dir.cleanup);
    const probe = new GitRepositoryProbe(pino({ level: 'silent' }), OutboundPolicy.publicOnly());
    createRepository(path.join(root, 'docs'), { 'index.md': '# Docs\n' });
    projectId = (
      await new ProjectService(storage, systemClock).create({
        name: 'Docs',
        repository: path.join(root, 'docs'),
      })
    ).id;
    service = new ContextRepositoryService(storage, systemClock, probe);
  });
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups = [];
  });

  it('connects, lists by name and disconnects, checking each like a project repository', async () => {
    const api = path.join(root, 'api');
    createRepository(api, { 'src/cli.ts': 'export const retries = 3;\n' }, 'trunk');
    const added = await service.add(projectId, { name: 'api', repository: api, ref: 'trunk' });
    expect(added).toEqual({
      name: 'api',
      repository: api,
      ref: 'trunk',
      createdAt: expect.any(String),
      warnings: [],
    });
    await service.add(projectId, { name: 'sdk.js', repository: api, ref: 'trunk' });
    expect((await service.list(projectId)).map((r) => r.name)).toEqual(['api', 'sdk.js']);

    await expect(
      service.add(projectId, { name: 'api', repository: api, ref: 'trunk' }),
    ).rejects.toMatchObject({
      kind: 'conflict',
      message: expect.stringMatching(/"api" is already connected/),
    });
    await expect(service.add(projectId, { name: 'Api Code', repository: api })).rejects.toMatchObject({
      kind: 'invalid',
      message: expect.stringMatching(/^name: "Api Code" is not a connected repository name/),
    });
    await expect(service.add(projectId, { name: 'other', repository: api })).rejects.toMatchObject({
      kind: 'invalid',
      message: expect.stringMatching(/has no branch "main"; its branches include trunk/),
    });
    await expect(service.add(projectId, { name: 'plain', repository: root })).rejects.toMatchObject({
      kind: 'invalid',
    });
    // Over HTTP a path must lie under the allowed roots, as for the project's own repository.
    await expect(
      service.add(
        projectId,
        { name: 'outside', repository: api, ref: 'trunk' },
        { localRoots: ['/srv/none'] },
      ),
    ).rejects.toMatchObject({
      kind: 'invalid',
      message: expect.stringMatching(/^repository: a path on this server/),
    });

    await service.remove(projectId, 'sdk.js');
    expect((await service.list(projectId)).map((r) => r.name)).toEqual(['api']);
    await expect(service.remove(projectId, 'sdk.js')).rejects.toMatchObject({ kind: 'not_found' });
    await expect(service.list('prj_missing')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it(`connects at most ${MAX_CONTEXT_REPOSITORIES}, and goes with its project`, async () => {
    const api = path.join(root, 'api');
    createRepository(api, { 'a.ts': '\n' });
    for (let i = 0; i < MAX_CONTEXT_REPOSITORIES; i++)
      await service.add(projectId, { name: `r${i}`, repository: api });
    await expect(service.add(projectId, { name: 'one-more', repository: api })).rejects.toMatchObject({
      kind: 'invalid',
      message: expect.stringMatching(/at most 20 repositories/),
    });
    await storage.db.deleteFrom('projects').where('id', '=', projectId).execute();
    expect(await storage.db.selectFrom('context_repositories').selectAll().execute()).toEqual([]);
  });
});
