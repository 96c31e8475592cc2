import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { signIn } from '../../helpers/dashboard-session.ts';
import { testBackend } from '../../helpers/storage.ts';

describe(`the public API through a dashboard session (${testBackend})`, () => {
  let t: TestApp;
  afterEach(() => t.close());

  it('gives a viewer the reads and an admin or owner what an admin key gets, with the same answers', async () => {
    t = await startTestApp({ env: { DOCWRIGHT_RATE_LIMIT: '4' } });
    const [viewer, admin, owner] = [
      await signIn(t, { role: 'viewer' }),
      await signIn(t, { role: 'admin' }),
      await signIn(t, { role: 'owner' }),
    ];
    const p = t.project.id;
    const body = { prompt: 'Add a page about limits' };

    const refused = await viewer.request('POST', `/dashboard/api/v2/agent/${p}/job`, { body });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: 'An account with role "viewer" cannot do this' });
    const created = await admin.request('POST', `/dashboard/api/v2/agent/${p}/job`, { body });
    expect(created.status).toBe(201);
    const job = (await created.json()) as { id: string; status: string };
    expect(job.status).toBe('active');
    expect(
      (await owner.request('POST', `/dashboard/api/v2/agent/${p}/job/${job.id}/message`, { body })).status,
    ).toBe(200);

    // Reads through the session equal the public API's.
    for (const path of [
      `/v2/agent/${p}/job/${job.id}`,
      `/v2/agent/${p}/jobs`,
      `/v2/agent/${p}/job/${job.id}/messages`,
    ]) {
      const viaKey = await (await t.request('GET', path)).json();
      const viaSession = await viewer.request('GET', `/dashboard/api${path}`);
      expect(viaSession.status).toBe(200);
      expect(await viaSession.json()).toEqual(viaKey);
    }
    // One rate-limit budget per project, whichever door the request came through.
    expect((await t.request('POST', `/v2/agent/${p}/job`, { body })).status).toBe(201);
    expect((await admin.request('POST', `/dashboard/api/v2/agent/${p}/job`, { body })).status).toBe(201);
    const limited = await admin.request('POST', `/dashboard/api/v2/agent/${p}/job`, { body });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toEqual(expect.any(String));

    expect((await viewer.request('POST', `/dashboard/api/v2/agent/${p}/job/${job.id}/archive`)).status).toBe(
      403,
    );
    const archived = await admin.request('POST', `/dashboard/api/v2/agent/${p}/job/${job.id}/archive`);
    expect(((await archived.json()) as { status: string }).status).toBe('archived');
    // An account sees every project, and an unknown one is 404.
    const unknown = await viewer.request('GET', '/dashboard/api/v2/agent/prj_unknown/jobs');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: 'Project prj_unknown not found' });
  });

  it('serves analytics: the same numbers as the API; events and settings changes need admin', async () => {
    t = await startTestApp();
    const viewer = await signIn(t, { role: 'viewer' });
    const admin = await signIn(t, { role: 'admin' });
    const p = t.project.id;
    const event = (id: string, ip: string, userAgent: string) => ({
      timestamp: '2026-01-05T10:00:00Z',
      path: '/quickstart',
      userAgent,
      ip,
      id,
    });
    const browser = 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 Safari/537.36';
    const viaKey = await t.request('POST', `/v1/analytics/${p}/events`, {
      body: { events: [event('a', '203.0.113.7', browser), event('b', '198.51.100.2', 'Claude-User/1.0')] },
    });
    expect(viaKey.status).toBe(202);
    const events = { events: [event('c', '203.0.113.9', browser)] };
    expect(
      (await viewer.request('POST', `/dashboard/api/v1/analytics/${p}/events`, { body: events })).status,
    ).toBe(403);
    const viaSession = await admin.request('POST', `/dashboard/api/v1/analytics/${p}/events`, {
      body: events,
    });
    expect(viaSession.status).toBe(202);
    expect(await viaSession.json()).toEqual({ accepted: 1, duplicates: 0, rejected: [] });

    const range = '?dateFrom=2026-01-01&dateTo=2026-02-01';
    for (const report of ['visitors', 'views', 'timeseries', 'breakdown']) {
      const path = `/v1/analytics/${p}/${report}${range}`;
      const expected = await (await t.request('GET', path)).json();
      const seen = await viewer.request('GET', `/dashboard/api${path}`);
      expect(seen.status).toBe(200);
      expect(await seen.json()).toEqual(expected);
    }
    const visitors = (await (
      await viewer.request('GET', `/dashboard/api/v1/analytics/${p}/visitors${range}`)
    ).json()) as {
      totals: { human: number; ai: number };
    };
    expect(visitors.totals).toMatchObject({ human: 2, ai: 1 });
    // CSV too.
    const csv = await viewer.request('GET', `/dashboard/api/v1/analytics/${p}/visitors${range}`, {
      headers: { accept: 'text/csv' },
    });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(await csv.text()).toMatch(
      /^path,human,ai,total,ai_assistant,ai_search,ai_training,ai_other\r?\n\/quickstart,2,1,3,1,0,0,0/,
    );

    const settings = `/dashboard/api/v1/analytics/${p}/settings`;
    expect((await viewer.request('PATCH', settings, { body: { countAiCrawlersAsAi: true } })).status).toBe(
      403,
    );
    expect((await admin.request('PATCH', settings, { body: { countAiCrawlersAsAi: true } })).status).toBe(
      200,
    );
    expect(await (await viewer.request('GET', settings)).json()).toMatchObject({ countAiCrawlersAsAi: true });
  });
});
