import { Type } from 'typebox';
import { defineTool } from './define-tool.ts';
import type { ResolvedToolLimits } from './limits.ts';
import { capOutput } from './output.ts';
import { checkDocumentation, type ValidationFinding } from './validation/validate-documentation.ts';
import type { Workspace } from './workspace.ts';

/** One finding per line: `path:line [rule] message`. Also fit for a pull request body. */
export function formatFindings(findings: ValidationFinding[]): string {
  return findings
    .map((f) => `${f.file}${f.line === undefined ? '' : `:${f.line}`} [${f.rule}] ${f.message}`)
    .join('\n');
}

export function validateTool(workspace: Workspace, limits: ResolvedToolLimits) {
  return defineTool({
    workspace,
    description:
      'Check the documentation for what breaks the site: Markdown/MDX that does not parse, invalid YAML ' +
      'frontmatter, internal links, images and imports pointing at missing files, and navigation entries ' +
      '(docs.json, mint.json, mkdocs.yml) pointing at missing pages. Run it after your changes and fix ' +
      'what it reports in files you touched. It is also run before your changes are committed.',
    schema: Type.Object({}, { additionalProperties: false }),
    run: async () => {
      const report = await checkDocumentation(await workspace.root());
      const pages = `${report.pagesChecked} page${report.pagesChecked === 1 ? '' : 's'}`;
      if (report.findings.length === 0) return `No problems found in ${pages}.`;
      const problems = `${report.findings.length} problem${report.findings.length === 1 ? '' : 's'}`;
      return capOutput(
        `${problems} found in ${pages}:\n${formatFindings(report.findings)}`,
        limits.maxOutputChars,
        'Fix these and run validate again to see the rest.',
      );
    },
  });
}
