import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A deterministic Mintlify-style docs repository of `pages` MDX pages in 50 groups, with
 * docs.json navigation and an AGENTS.md, committed on `main`. Returns the path of a bare
 * clone (what a code host would hold).
 */
export function generateDocsRepository(root: string, pages: number): string {
  const work = path.join(root, 'source');
  mkdirSync(work, { recursive: true });
  const groups: { group: string; pages: string[] }[] = [];
  for (let i = 0; i < pages; i++) {
    const group = `section-${String(i % 50).padStart(2, '0')}`;
    const page = `${group}/page-${String(i).padStart(4, '0')}`;
    mkdirSync(path.join(work, group), { recursive: true });
    const related = `/section-${String((i + 1) % 50).padStart(2, '0')}/page-${String((i + 1) % pages).padStart(4, '0')}`;
    writeFileSync(
      path.join(work, `${page}.mdx`),
      `---\ntitle: Page ${i}\ndescription: Reference page number ${i}.\n---\n\n## Overview\n\nThis page documents feature ${i}. See [the next feature](${related}).\n\n\`\`\`bash\ncurl https://api.example.com/v1/features/${i}\n\`\`\`\n`,
    );
    let entry = groups.find((g) => g.group === group);
    if (!entry) {
      entry = { group, pages: [] };
      groups.push(entry);
    }
    entry.pages.push(page);
  }
  writeFileSync(
    path.join(work, 'docs.json'),
    `${JSON.stringify({ name: 'Bench docs', navigation: { groups } }, null, 2)}\n`,
  );
  writeFileSync(path.join(work, 'AGENTS.md'), '# Style\n\nUse second person. Keep pages short.\n');
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', ...args], {
      cwd,
      stdio: 'pipe',
    });
  git(work, 'init', '--quiet', '--initial-branch=main');
  git(work, 'add', '--all');
  git(work, 'commit', '--quiet', '-m', 'Generated docs');
  const bare = path.join(root, 'docs.git');
  git(root, 'clone', '--quiet', '--bare', work, bare);
  return bare;
}
