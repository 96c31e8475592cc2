import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLIENT_DOCUMENT,
  CLIENT_TYPES,
  documentHash,
  publicApiDocument,
  recordedHash,
} from '../../../scripts/client-types.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';

const STALE = 'stale: run `npm run client:types` and commit src/client/openapi.json and openapi-types.ts';

describe(`the typed client's generated types are those of the running server (${testBackend})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('src/client/openapi.json is the public part of the document the server publishes', async () => {
    const live = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as Parameters<
      typeof publicApiDocument
    >[0];
    const committed: unknown = JSON.parse(readFileSync(CLIENT_DOCUMENT, 'utf8'));
    expect(committed, STALE).toEqual(publicApiDocument(live));
    // The public API only: the dashboard's routes take a session, not a key.
    expect(Object.keys(publicApiDocument(live).paths)).toContain('/v2/agent/{projectId}/job/{id}/events');
    expect(Object.keys(publicApiDocument(live).paths).filter((p) => p.startsWith('/dashboard/'))).toEqual([]);
  });

  it('src/client/openapi-types.ts was generated from that document', () => {
    const committed: unknown = JSON.parse(readFileSync(CLIENT_DOCUMENT, 'utf8'));
    const types = readFileSync(CLIENT_TYPES, 'utf8');
    expect(recordedHash(types), STALE).toBe(documentHash(committed));
    expect(types).toContain("'/v2/agent/{projectId}/job': {");
  });
});
