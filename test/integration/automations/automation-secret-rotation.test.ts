import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { sendGitHubHook, sendGitLabHook } from '../../helpers/code-change-hooks.ts';
import { testBackend } from '../../helpers/storage.ts';

const ENV = { DOCWRIGHT_SECRET_KEY: 'base64:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=' };
const DAY_MS = 24 * 60 * 60 * 1000;

interface AutomationBody {
  id: string;
  webhookSecret?: string;
  previousSecretExpiresAt?: string | null;
}

describe(`code-change automation secret rotation (${testBackend})`, { timeout: 60_000 }, () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  async function start(clock?: () => Date) {
    t = await startTestApp({ env: ENV, ...(clock ? { clock } : {}) });
    const app = t;
    const base = `/v2/agent/${app.project.id}/automations`;
    const create = async (trigger: Record<string, unknown>) => {
      const response = await app.request('POST', base, {
        body: { name: 'Docs follow the API', trigger, instructions: 'Keep the guide in step.' },
      });
      expect(response.status).toBe(201);
      return (await response.json()) as AutomationBody;
    };
    const rotate = (id: string) => app.request('POST', `${base}/${id}/rotate-secret`);
    const get = async (id: string) =>
      (await (await app.request('GET', `${base}/${id}`)).json()) as AutomationBody;
    // A ping is answered 200 once a secret verifies it, 401 otherwise; nothing runs either way.
    const ping = async (secret: string) =>
      (
        await sendGitHubHook(`${app.baseUrl}/v1/hooks/github/${app.project.id}`, {
          event: 'ping',
          payload: { zen: 'Design for failure.', hook_id: 1 },
          secret,
        })
      ).status;
    return { app, create, rotate, get, ping };
  }

  it('accepts webhooks signed with the replaced secret for 24 hours, then with the new one only', async () => {
    let offsetMs = 0;
    const { create, rotate, get, ping } = await start(() => new Date(Date.now() + offsetMs));
    const created = await create({ kind: 'code_change', provider: 'github', repository: 'acme/api' });
    const first = created.webhookSecret as string;
    expect(created.previousSecretExpiresAt).toBeNull();
    expect(await ping(first)).toBe(200);

    const answer = await rotate(created.id);
    expect(answer.status).toBe(200);
    const rotated = (await answer.json()) as AutomationBody;
    const second = rotated.webhookSecret as string;
    expect(second).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second).not.toBe(first);
    const expires = Date.parse(rotated.previousSecretExpiresAt as string);
    expect(Math.abs(expires - (Date.now() + DAY_MS))).toBeLessThan(60_000);
    // The secret is shown once: reading the automation does not return it.
    const read = await get(created.id);
    expect(read.webhookSecret).toBeUndefined();
    expect(read.previousSecretExpiresAt).toBe(rotated.previousSecretExpiresAt);

    expect(await ping(second)).toBe(200);
    expect(await ping(first)).toBe(200);
    expect(await ping('not-the-secret')).toBe(401);

    offsetMs = DAY_MS - 60_000;
    expect(await ping(first)).toBe(200);
    offsetMs = DAY_MS + 1_000;
    expect(await ping(first)).toBe(401);
    expect(await ping(second)).toBe(200);
    expect((await get(created.id)).previousSecretExpiresAt).toBeNull();
  });

  it('two rotations at once both answer a secret that is accepted; a third drops the oldest', async () => {
    const { create, rotate, ping } = await start();
    const created = await create({ kind: 'code_change', provider: 'github', repository: 'acme/api' });
    const answers = await Promise.all([rotate(created.id), rotate(created.id)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    const [a, b] = await Promise.all(
      answers.map(async (r) => ((await r.json()) as AutomationBody).webhookSecret as string),
    );
    expect(a).not.toBe(b);
    expect(await ping(a as string)).toBe(200);
    expect(await ping(b as string)).toBe(200);
    // Both rotations happened, one after the other: the creation's secret is no longer accepted.
    expect(await ping(created.webhookSecret as string)).toBe(401);
    const third = (await (await rotate(created.id)).json()) as AutomationBody;
    expect(await ping(third.webhookSecret as string)).toBe(200);
    expect([await ping(a as string), await ping(b as string)].sort()).toEqual([200, 401]);
  });

  it('GitLab: the replaced token is accepted during the overlap', async () => {
    const { app, create, rotate } = await start();
    const created = await create({ kind: 'code_change', provider: 'gitlab', repository: 'acme/api' });
    const rotated = (await (await rotate(created.id)).json()) as AutomationBody;
    const send = async (token: string) =>
      (
        await sendGitLabHook(`${app.baseUrl}/v1/hooks/gitlab/${app.project.id}`, {
          event: 'Push Hook',
          payload: { object_kind: 'push' },
          token,
        })
      ).status;
    expect(await send(rotated.webhookSecret as string)).toBe(200);
    expect(await send(created.webhookSecret as string)).toBe(200);
    expect(await send('glpat-wrong')).toBe(401);
  });

  it('refuses an automation without a webhook secret (409) and an unknown one (404)', async () => {
    const { create, rotate } = await start();
    const manual = await create({ kind: 'manual' });
    const refused = await rotate(manual.id);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({
      error: `Automation ${manual.id} has no webhook secret: only a code_change trigger has one`,
    });
    const unknown = await rotate('aut_unknown');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toHaveProperty('error');
  });
});
