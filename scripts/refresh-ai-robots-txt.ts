// Refreshes the vendored copy of ai.robots.txt's robots.json that the agent list is built from
// (src/domain/analytics/agents/ai-robots-txt.json) and the record of where it came from.
//
//   npm run agents:refresh                          # the newest robots.json on GitHub
//   npm run agents:refresh -- robots.json --commit <sha>   # a copy fetched some other way
//
// Then run the list's tests (npx vitest run test/unit/analytics/agent-list.test.ts), review
// what changed (git diff, and the coverage the test prints), curate new tokens in curated.ts,
// bump AGENT_LIST_VERSION and record the new fingerprint the test reports.
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

const REPOSITORY = 'ai-robots-txt/ai.robots.txt';
const target = new URL('../src/domain/analytics/agents/', import.meta.url);

const { values, positionals } = parseArgs({
  options: { commit: { type: 'string' } },
  allowPositionals: true,
});
let text: string;
let commit: string;
if (positionals[0]) {
  if (!values.commit) throw new Error('Give the commit the file comes from: --commit <sha>');
  text = await readFile(positionals[0], 'utf8');
  commit = values.commit;
} else {
  const commits = await fetchOk(
    `https://api.github.com/repos/${REPOSITORY}/commits?path=robots.json&per_page=1`,
  );
  commit = ((await commits.json()) as Array<{ sha: string }>)[0]?.sha ?? '';
  if (!/^[0-9a-f]{40}$/.test(commit)) throw new Error('GitHub named no commit of robots.json');
  text = await (
    await fetchOk(`https://raw.githubusercontent.com/${REPOSITORY}/${commit}/robots.json`)
  ).text();
}

const parsed: unknown = JSON.parse(text);
if (
  typeof parsed !== 'object' ||
  parsed === null ||
  Array.isArray(parsed) ||
  !Object.values(parsed).every((v) => typeof v === 'object' && v !== null && !Array.isArray(v))
) {
  throw new Error('robots.json is not an object of agents');
}
await writeFile(new URL('ai-robots-txt.json', target), text);
const source = {
  repository: `https://github.com/${REPOSITORY}`,
  path: 'robots.json',
  commit,
  retrieved: new Date().toISOString().slice(0, 10),
};
await writeFile(new URL('ai-robots-txt.source.json', target), `${JSON.stringify(source, null, 2)}\n`);
console.log(
  `robots.json at ${commit}: ${Object.keys(parsed).length} agents. Now run the agent list's tests.`,
);

async function fetchOk(url: string): Promise<Response> {
  const response = await fetch(url, { headers: { 'user-agent': 'docwright-agent-list-refresh' } });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response;
}
