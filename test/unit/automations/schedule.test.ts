import { describe, expect, it } from 'vitest';
import { checkSchedule, latestSlot, nextSlot } from '../../../src/domain/automations/schedule.ts';
import { matchesCodeChange, parseTrigger } from '../../../src/domain/automations/trigger-input.ts';

describe('schedule slots (croner)', () => {
  it('counts a slot exactly at now as due, and the one before otherwise', () => {
    const at = (s: string) => new Date(s);
    expect(latestSlot('0 * * * *', 'UTC', at('2026-03-02T11:00:00.000Z'))?.toISOString()).toBe(
      '2026-03-02T11:00:00.000Z',
    );
    expect(latestSlot('0 * * * *', 'UTC', at('2026-03-02T10:59:59.999Z'))?.toISOString()).toBe(
      '2026-03-02T10:00:00.000Z',
    );
    expect(nextSlot('0 9 * * 1', 'Europe/Paris', at('2026-11-25T00:00:00Z'))?.toISOString()).toBe(
      '2026-11-30T08:00:00.000Z',
    );
  });

  it('refuses a bad expression, a zone that is not IANA, and an expression that never fires, naming the field', () => {
    expect(() => checkSchedule('every monday', 'UTC')).toThrow(/^trigger\.cron: /);
    expect(() => checkSchedule('0 9 * * *', 'Mars/Olympus')).toThrow(/^trigger\.timezone: /);
    expect(() => checkSchedule('0 0 31 2 *', 'UTC')).toThrow(/trigger\.cron: .*never fires/);
    expect(() => checkSchedule('@weekly', 'America/New_York')).not.toThrow();
  });
});

describe('code-change triggers', () => {
  const trigger = parseTrigger({
    kind: 'code_change',
    provider: 'gitlab',
    repository: 'Acme/platform/api',
    paths: ['src/api/**', 'openapi.yaml'],
    baseBranch: 'main',
  });

  it('fills in defaults and keeps what was given', () => {
    expect(parseTrigger({ kind: 'code_change', provider: 'github', repository: 'acme/api' })).toEqual({
      kind: 'code_change',
      provider: 'github',
      repository: 'acme/api',
      paths: [],
      baseBranch: null,
    });
    expect(() => parseTrigger({ kind: 'code_change', provider: 'github', repository: 'a/b/c' })).toThrow(
      /owner\/name/,
    );
  });

  it('matches the repository whatever its case, the base branch, and a changed file against the globs', () => {
    if (trigger.kind !== 'code_change') throw new Error('expected a code_change trigger');
    const change = {
      repository: 'acme/platform/api',
      baseBranch: 'main',
      changedFiles: ['src/api/users.ts'],
    };
    expect(matchesCodeChange(trigger, change)).toBe(true);
    expect(matchesCodeChange(trigger, { ...change, changedFiles: ['README.md', 'openapi.yaml'] })).toBe(true);
    expect(matchesCodeChange(trigger, { ...change, changedFiles: ['src/ui/app.tsx'] })).toBe(false);
    expect(matchesCodeChange(trigger, { ...change, baseBranch: 'release' })).toBe(false);
    expect(matchesCodeChange(trigger, { ...change, repository: 'acme/platform/web' })).toBe(false);
  });
});
