import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
  allowScripts?: Record<string, boolean>;
};

// The machines this runs on ship an older Node; the project brings Node 24 as a dependency and
// npm scripts put its binary first on PATH (README, "Requires").
describe('the Node the project brings', () => {
  it('pins the node package at an exact 24.x release and lets its install script run', () => {
    expect(pkg.dependencies.node).toMatch(/^24\.\d+\.\d+$/);
    expect(pkg.allowScripts?.node).toBe(true);
  });

  it('is the Node running this suite under npm test', () => {
    expect(process.version).toBe(`v${pkg.dependencies.node}`);
  });
});
