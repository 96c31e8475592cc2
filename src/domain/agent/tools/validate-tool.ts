import { Type } from 'typebox';
import { defineTool } from './define-tool.ts';
import type { ResolvedToolLimits } from './limits.ts';
import { capOutput } from './output.ts';
import { compareFindings } from './validation/compare-findings.ts';
import { checkDocumentation, type ValidationFinding } from './validation/validate-documentation.ts';
import type { Workspace } from './workspace.ts';

/** One finding per line: `path:line [rule] message`. Also fit for a pull request body. */
export function formatFindings(findings: ValidationFinding[]): string {
  return findings
    .map((f) => `${f.file}${f.line === undefined ? '' : `:${f.line}`} [${f.rule}] ${f.message}`)
    .join('\n');
}

/** The findings at the job's base commit, to tell the model which problems its changes made. */
export type BaselineFindings = () => Promise<ValidationFinding[]>;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function validateTool(workspace: Workspace, limits: ResolvedToolLimits, baseline?: BaselineFindings) {
  return defineTool({
    workspace,
    description:
      'Check the documentation for what breaks the site, the way its generator (Mintlify, mkdocs, Docusaurus) ' +
      'builds it: Markdown/MDX that does not parse, invalid YAML frontmatter, internal links, images and imports ' +
      'pointing at missing pages or files, and navigation entries pointing at missing pages. It reports the ' +
      'problems your changes introduced and counts those that were there before. Run it after your changes and ' +
      'fix what it reports as yours. It is also run before your changes are committed.',
    schema: Type.Object({}, { additionalProperties: false }),
    run: async () => {
      const report = await checkDocumentation(await workspace.root());
      const pages = plural(report.pagesChecked, 'page');
      const { introduced, preExisting } = baseline
        ? compareFindings(report.findings, await baseline())
        : { introduced: report.findings, preExisting: 0 };
      const before =
        preExisting > 0
          ? ` ${plural(preExisting, 'other problem')} ${preExisting === 1 ? 'was' : 'were'} there before your changes; leave ${preExisting === 1 ? 'it' : 'them'} unless you were asked to fix ${preExisting === 1 ? 'it' : 'them'}.`
          : '';
      if (introduced.length === 0) {
        return `No problems ${baseline ? 'introduced by your changes ' : ''}found in ${pages}.${before}`;
      }
      const heading = baseline
        ? `${plural(introduced.length, 'problem')} introduced by your changes, in ${pages}:`
        : `${plural(introduced.length, 'problem')} found in ${pages}:`;
      return capOutput(
        `${heading}\n${formatFindings(introduced)}${before ? `\n${before.trim()}` : ''}`,
        limits.maxOutputChars,
        'Fix these and run validate again to see the rest.',
      );
    },
  });
}
