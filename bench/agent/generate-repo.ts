import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A deterministic Mintlify-style docs repository of `pages` MDX pages in 50 groups, with
 * docs.json navigation and an AGENTS.md, committed on `main`. Returns the path of a bare
 * clone (what a code host would hold). Pages are short (about 300 bytes) unless `realistic`:
 * then about 6 KB each, the mean page of published Mintlify sites, with components, lists,
 * code blocks and a dozen links (see realisticPage).
 */
export function generateDocsRepository(
  root: string,
  pages: number,
  options: { realistic?: boolean } = {},
): string {
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
      options.realistic
        ? realisticPage(i, related, pages)
        : `---\ntitle: Page ${i}\ndescription: Reference page number ${i}.\n---\n\n## Overview\n\nThis page documents feature ${i}. See [the next feature](${related}).\n\n\`\`\`bash\ncurl https://api.example.com/v1/features/${i}\n\`\`\`\n`,
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
  if (options.realistic) {
    mkdirSync(path.join(work, 'images'), { recursive: true });
    writeFileSync(path.join(work, 'images', 'feature-settings.png'), 'png');
  }
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

/** A page of about 6 KB shaped like a product guide: what a parser meets on a real site. */
function realisticPage(i: number, related: string, pages: number): string {
  const pageAt = (n: number) =>
    `/section-${String(n % 50).padStart(2, '0')}/page-${String(n % pages).padStart(4, '0')}`;
  const paragraph = (topic: string) =>
    `Feature ${i} keeps ${topic} predictable: each request is checked, logged and retried when the network fails. ` +
    `Read [how retries work](${pageAt(i + 3)}) before you change the defaults, and see the **limits** below for what a single call may do. ` +
    `Values are given in \`snake_case\`; unknown fields are refused with a clear error, so a typo never passes silently.`;
  return [
    '---',
    `title: "Feature ${i}: configure and use it"`,
    `description: "How feature ${i} works, how to turn it on, and what to do when it fails."`,
    `keywords: ["feature ${i}", "configuration", "api", "limits"]`,
    '---',
    '',
    paragraph('authentication'),
    '',
    '<Tip>',
    `  New to the API? Start with [the quickstart](${pageAt(0)}) and come back here once you have a key.`,
    '</Tip>',
    '',
    '## Turn it on',
    '',
    '1. Open the dashboard and choose **Settings**.',
    `2. Under *Features*, enable \`feature_${i}\` and save.`,
    `3. Call the API once to check: see [testing a change](${pageAt(i + 7)}).`,
    '',
    '<Tabs>',
    '  <Tab title="cURL">',
    '    ```bash',
    `    curl -X POST https://api.example.com/v1/features/${i} \\`,
    '      -H "Authorization: Bearer $API_KEY" \\',
    '      -d \'{"enabled": true, "retries": 3}\'',
    '    ```',
    '  </Tab>',
    '  <Tab title="Node.js">',
    '    ```javascript',
    "    import { Client } from '@example/sdk';",
    '',
    '    const client = new Client({ apiKey: process.env.API_KEY });',
    `    await client.features.update(${i}, { enabled: true, retries: 3 });`,
    '    ```',
    '  </Tab>',
    '</Tabs>',
    '',
    '## Limits',
    '',
    paragraph('rate limits'),
    '',
    '| Setting | Default | Maximum |',
    '| --- | --- | --- |',
    '| `retries` | 3 | 10 |',
    '| `timeout_ms` | 5000 | 60000 |',
    '| `batch_size` | 100 | 1000 |',
    '',
    '<Warning>',
    `  Raising \`timeout_ms\` above 30 seconds holds a connection open: read [connection limits](${pageAt(i + 11)}) first.`,
    '</Warning>',
    '',
    '## Responses',
    '',
    '```json',
    '{',
    `  "id": "feat_${String(i).padStart(6, '0')}",`,
    '  "enabled": true,',
    '  "retries": 3,',
    '  "updated_at": "2026-01-01T00:00:00Z"',
    '}',
    '```',
    '',
    paragraph('errors'),
    '',
    '![The feature settings panel](/images/feature-settings.png)',
    '',
    '## Related',
    '',
    '<CardGroup cols={2}>',
    `  <Card title="Next feature" icon="arrow-right" href="${related}">`,
    '    What to set up once this one works.',
    '  </Card>',
    `  <Card title="Troubleshooting" icon="wrench" href="${pageAt(i + 13)}">`,
    '    Errors you may see, and what each one means.',
    '  </Card>',
    '</CardGroup>',
    '',
    paragraph('webhooks'),
    '',
    '## Advanced settings',
    '',
    paragraph('caching'),
    '',
    '<AccordionGroup>',
    '  <Accordion title="Run it in a batch">',
    `    Send up to \`batch_size\` items in one call. Each item is validated on its own; see [batches](${pageAt(i + 17)}).`,
    '',
    '    ```python',
    '    from example import Client',
    '',
    '    client = Client()',
    `    client.features.batch(${i}, items=[{"id": 1}, {"id": 2}])`,
    '    ```',
    '  </Accordion>',
    '  <Accordion title="Keep an audit trail">',
    `    Every change is recorded with who made it and when, and kept for a year. Export it from [the audit log](${pageAt(i + 19)}).`,
    '  </Accordion>',
    '</AccordionGroup>',
    '',
    paragraph('pagination'),
    '',
    '- `cursor`: where the next page starts; empty on the last page.',
    '- `limit`: how many items to return, from 1 to 100.',
    `- \`order\`: \`asc\` or \`desc\`, by creation time (see [ordering](${pageAt(i + 23)})).`,
    '',
    '<Note>',
    `  Feature ${i} is available on every plan. [Contact us](${pageAt(1)}) to raise a limit.`,
    '</Note>',
    '',
    paragraph('versioning'),
    '',
    '## Migrating from the previous version',
    '',
    paragraph('migrations'),
    '',
    paragraph('deprecations'),
    '',
  ].join('\n');
}
