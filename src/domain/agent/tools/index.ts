import type { ToolSet } from 'ai';
import type { ConnectedContext } from './connected-files.ts';
import { fetchUrlTool, type WebResearch } from './fetch-url.ts';
import { deleteFileTool, editFileTool, moveFileTool, readFileTool, writeFileTool } from './file-tools.ts';
import { resolveToolLimits, type ToolLimits } from './limits.ts';
import { listFilesTool } from './list-files.ts';
import { searchTool } from './search.ts';
import { type BaselineFindings, validateTool } from './validate-tool.ts';
import { Workspace } from './workspace.ts';

export type { ConnectedContext } from './connected-files.ts';
export type { WebResearch } from './fetch-url.ts';
export { DEFAULT_TOOL_LIMITS, type ToolLimits } from './limits.ts';
export { type BaselineFindings, formatFindings } from './validate-tool.ts';
export { type ComparedFindings, compareFindings } from './validation/compare-findings.ts';
export type { DocsTree, TreeFile } from './validation/docs-tree.ts';
export {
  checkDocumentation,
  type ValidationFinding,
  type ValidationReport,
  validateDocumentation,
} from './validation/validate-documentation.ts';

/**
 * The documentation agent's tools, confined to the job's working copy `workdir`: every path is
 * checked (no absolute paths, no escaping `..`, no symbolic links leading outside, nothing under
 * `.git`), and every failure comes back to the model as an `Error: …` result. No shell.
 * Throws only when a limit is not a positive integer. With `baseline` (the findings at the
 * job's base commit), validate tells the model which problems its changes introduced. With
 * `web` (the project lets the agent read web pages), fetch_url is added.
 */
export function createDocumentationTools(
  workdir: string,
  limits?: Partial<ToolLimits>,
  options: { baseline?: BaselineFindings; connected?: ConnectedContext; web?: WebResearch } = {},
): ToolSet {
  const resolved = resolveToolLimits(limits);
  const workspace = new Workspace(workdir);
  return {
    list_files: listFilesTool(workspace, resolved, options.connected),
    read_file: readFileTool(workspace, resolved, options.connected),
    search: searchTool(workspace, resolved, options.connected),
    write_file: writeFileTool(workspace, resolved),
    edit_file: editFileTool(workspace, resolved),
    move_file: moveFileTool(workspace),
    delete_file: deleteFileTool(workspace),
    validate: validateTool(workspace, resolved, options.baseline),
    ...(options.web ? { fetch_url: fetchUrlTool(options.web, resolved) } : {}),
  };
}
