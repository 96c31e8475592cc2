import { describe, expect, it } from 'vitest';
import {
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  keyHint,
} from '../../src/domain/keys/api-key-format.ts';

describe('API key format', () => {
  it('generates dw_ keys that pass their own checksum', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^dw_[0-9A-Za-z]{38}$/);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 1000 }, generateApiKey));
    expect(keys.size).toBe(1000);
  });

  it('rejects any single-character change through the checksum', () => {
    const key = generateApiKey();
    for (let i = 3; i < key.length; i++) {
      const replacement = key[i] === 'a' ? 'b' : 'a';
      const altered = key.slice(0, i) + replacement + key.slice(i + 1);
      expect(isWellFormedApiKey(altered), `position ${i}`).toBe(false);
    }
  });

  it('rejects wrong prefixes, lengths and alphabets', () => {
    const key = generateApiKey();
    for (const bad of [
      '',
      'dw_',
      key.replace('dw_', 'dx_'),
      `${key}a`,
      key.slice(0, -1),
      key.replace(/.$/, '!'),
    ]) {
      expect(isWellFormedApiKey(bad), bad).toBe(false);
    }
  });

  it('hashes with SHA-256 and shows only a hint', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain(key.slice(3, 20));
    expect(keyHint(key)).toBe(`dw_…${key.slice(-4)}`);
  });
});
