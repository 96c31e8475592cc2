import type { TurnSource } from '../jobs/turn-sources.ts';
import type { SourcePullRequest } from './agent.ts';
import { type ComparedFindings, formatFindings } from './tools/index.ts';

/** Findings listed in a pull request body or a note; more are counted. */
export const MAX_FINDINGS_LISTED = 50;

/**
 * The pull request's body: the model's description, the source pull requests an automation
 * documents, the requests, what validation found, and last the **Sources** the change relies
 * on, from the tool calls Docwright saw: a reviewer can check every fact against them.
 */
export function pullRequestBody(input: {
  jobId: string;
  summary: string;
  findings: ComparedFindings;
  prompts: string[];
  sources: SourcePullRequest[];
  research: TurnSource[];
}): string {
  const requests = input.prompts.map((p, i) => `${i + 1}. ${quoteLine(p)}`).join('\n');
  const { introduced, preExisting } = input.findings;
  const listed = introduced.slice(0, MAX_FINDINGS_LISTED);
  const validation = [
    introduced.length === 0
      ? 'Validation found no problems introduced by this change (Markdown/MDX, frontmatter, internal links, navigation).'
      : `Validation findings introduced by this change:\n\n${formatFindings(listed)}${introduced.length > listed.length ? `\n\n…and ${introduced.length - listed.length} more.` : ''}`,
    ...(preExisting > 0
      ? [
          `${preExisting} finding${preExisting === 1 ? ' was' : 's were'} already there before this change and ${preExisting === 1 ? 'is' : 'are'} not listed.`,
        ]
      : []),
  ].join('\n\n');
  const sources =
    input.sources.length === 0
      ? []
      : [
          '### Source pull requests',
          '',
          ...input.sources.map(
            (s) =>
              `- [${markdownText(s.title)} (#${s.number})](${s.url})${s.author ? ` by @${markdownText(s.author)}` : ''}`,
          ),
          '',
        ];
  return [
    input.summary.trim(),
    '',
    ...sources,
    '### Requests',
    '',
    requests,
    '',
    '### Validation',
    '',
    validation,
    '',
    ...researchSection(input.research),
    `<sub>Opened by Docwright job \`${input.jobId}\`.</sub>`,
  ].join('\n');
}

/** Text for a Markdown link's label: on one line, its brackets escaped. */
function markdownText(text: string): string {
  return quoteLine(text).replace(/[[\]\\]/g, '\\$&');
}

function quoteLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
}

/** The Sources section: connected-repository files at the commit read (linked when they can be) and pages fetched. */
function researchSection(sources: TurnSource[]): string[] {
  if (sources.length === 0) return [];
  return [
    '### Sources',
    '',
    ...sources.map((source) => {
      if (source.kind === 'url') return `- <${source.url}>`;
      const label = `\`${markdownCode(`${source.repository}:${source.path}`)}\` at \`${source.commit.slice(0, 12)}\``;
      return source.url ? `- [${label}](<${source.url}>)` : `- ${label}`;
    }),
    '',
  ];
}

/** Text inside an inline code span: no backticks or line breaks that would end it. */
function markdownCode(text: string): string {
  return text.replace(/[`\r\n]/g, ' ');
}
