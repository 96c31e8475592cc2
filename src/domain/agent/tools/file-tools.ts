import { open, rename, unlink } from 'node:fs/promises';
import { Type } from 'typebox';
import {
  type ConnectedContext,
  RepositoryParam,
  readConnectedText,
  withRepositoryParam,
} from './connected-files.ts';
import { defineTool } from './define-tool.ts';
import type { ResolvedToolLimits } from './limits.ts';
import { ToolError } from './tool-error.ts';
import { READ_FLAGS, type RepoPath, type Workspace, WRITE_FLAGS } from './workspace.ts';

const PathParam = (description: string) => Type.String({ minLength: 1, description });
const REPO_PATH = 'Path relative to the repository root, with forward slashes, e.g. "guides/webhooks.mdx".';

/** Reads a checked file as UTF-8 text, refusing binaries and files over the size limit. */
export async function readTextFile(
  file: RepoPath & { size: number },
  limits: ResolvedToolLimits,
): Promise<string> {
  if (file.size > limits.maxFileBytes) {
    throw new ToolError(
      `${file.relative} is ${file.size} bytes, over the ${limits.maxFileBytes}-byte limit; use search to find the part you need`,
    );
  }
  const handle = await open(file.real, READ_FLAGS);
  try {
    const bytes = await handle.readFile();
    if (bytes.includes(0))
      throw new ToolError(`${file.relative} is a binary file; only text files can be read`);
    return bytes.toString('utf8');
  } finally {
    await handle.close();
  }
}

async function writeTextFile(
  workspace: Workspace,
  path: RepoPath,
  content: string,
  limits: ResolvedToolLimits,
): Promise<number> {
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > limits.maxFileBytes) {
    throw new ToolError(
      `the new content of ${path.relative} would be ${bytes} bytes, over the ${limits.maxFileBytes}-byte limit`,
    );
  }
  await workspace.ensureParent(path);
  const handle = await open(path.real, WRITE_FLAGS, 0o644);
  try {
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
  return bytes;
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Every start offset of `needle` in `haystack`, overlapping ones included. */
function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) found.push(i);
  return found;
}

export function readFileTool(workspace: Workspace, limits: ResolvedToolLimits, connected?: ConnectedContext) {
  return defineTool({
    workspace,
    description:
      'Read a text file of the repository. Each output line starts with its line number and a tab; ' +
      'that prefix is not part of the file. Long files come back in parts: pass start_line and ' +
      'end_line (1-based, inclusive) to read a range, and follow the note at the end to read on.' +
      (connected ? ' With `repository`, read a file of a connected repository instead (read-only).' : ''),
    schema: withRepositoryParam(
      Type.Object(
        {
          repository: RepositoryParam,
          path: PathParam(REPO_PATH),
          start_line: Type.Optional(
            Type.Integer({ minimum: 1, description: 'First line to read (1-based). Default 1.' }),
          ),
          end_line: Type.Optional(
            Type.Integer({
              minimum: 1,
              description: 'Last line to read, inclusive. Default: the end of the file.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      connected,
    ),
    run: async (input) => {
      if (input.repository !== undefined && connected) {
        const { label, text } = await readConnectedText(
          connected,
          { ...input, repository: input.repository },
          limits,
        );
        return numberedLines(label, text, input, limits);
      }
      const file = await workspace.existingFile(input.path);
      return numberedLines(file.relative, await readTextFile(file, limits), input, limits);
    },
  });
}

/** A file's lines `start_line`..`end_line`, numbered, cut to the output limit with a note on how to read on. */
export function numberedLines(
  label: string,
  text: string,
  range: { start_line?: number | undefined; end_line?: number | undefined },
  limits: ResolvedToolLimits,
): string {
  const lines = splitLines(text);
  if (lines.length === 0) return `${label} is empty.`;
  const start = range.start_line ?? 1;
  const end = Math.min(range.end_line ?? lines.length, lines.length);
  if (start > lines.length) {
    throw new ToolError(`start_line ${start} is past the end of ${label}, which has ${lines.length} lines`);
  }
  if (end < start) throw new ToolError(`end_line ${end} is before start_line ${start}`);

  const width = String(end).length;
  let out = `${label} (lines ${start}-${end} of ${lines.length})\n`;
  for (let n = start; n <= end; n++) {
    const line = `${String(n).padStart(width)}\t${lines[n - 1] ?? ''}\n`;
    if (out.length + line.length > limits.maxOutputChars) {
      if (n === start) {
        // Show at least part of a huge first line, so reading on is always possible.
        out += line.slice(0, limits.maxOutputChars - out.length);
        return `${out}\n[output truncated: line ${n} is longer than the output limit and was cut; call read_file with start_line=${n + 1} to read on]`;
      }
      return `${out}\n[output truncated after line ${n - 1} of ${lines.length}; call read_file with start_line=${n} to read on]`;
    }
    out += line;
  }
  return out.trimEnd();
}

export function writeFileTool(workspace: Workspace, limits: ResolvedToolLimits) {
  return defineTool({
    workspace,
    description:
      'Create a file, or replace the whole content of an existing one. Missing parent directories are ' +
      'created. To change part of an existing file, prefer edit_file.',
    schema: Type.Object(
      {
        path: PathParam(REPO_PATH),
        content: Type.String({ description: 'The complete new content of the file.' }),
      },
      { additionalProperties: false },
    ),
    run: async (input) => {
      const target = await workspace.target(input.path);
      if (target.exists) await workspace.existingFile(input.path);
      const bytes = await writeTextFile(workspace, target, input.content, limits);
      return `${target.exists ? 'Overwrote' : 'Created'} ${target.relative} (${bytes} bytes).`;
    },
  });
}

export function editFileTool(workspace: Workspace, limits: ResolvedToolLimits) {
  return defineTool({
    workspace,
    description:
      'Replace one exact piece of text in a file. old_string must appear in the file exactly once, ' +
      'character for character (whitespace and line breaks included, without read_file line-number ' +
      'prefixes); include enough surrounding lines to make it unique. Fails without changing anything ' +
      'when old_string is missing or appears more than once.',
    schema: Type.Object(
      {
        path: PathParam(REPO_PATH),
        old_string: Type.String({
          minLength: 1,
          description: 'The exact text to replace; must occur exactly once.',
        }),
        new_string: Type.String({ description: 'The text to put in its place (may be empty to delete it).' }),
      },
      { additionalProperties: false },
    ),
    run: async (input) => {
      const file = await workspace.existingFile(input.path);
      const content = await readTextFile(file, limits);
      if (input.old_string === input.new_string)
        throw new ToolError('old_string and new_string are the same');
      const found = occurrences(content, input.old_string);
      const first = found[0];
      if (first === undefined) {
        const crlf =
          content.includes('\r\n') && !input.old_string.includes('\r\n') && input.old_string.includes('\n');
        throw new ToolError(
          `old_string was not found in ${file.relative}. It must match the file exactly, including ` +
            `whitespace and line breaks; read the file again and copy the text${crlf ? ' (this file uses CRLF line endings)' : ''}`,
        );
      }
      if (found.length > 1) {
        const lines = [...new Set(found.slice(0, 50).map((i) => lineAt(content, i)))].slice(0, 10);
        throw new ToolError(
          `old_string occurs ${found.length} times in ${file.relative} (at lines ${lines.join(', ')}); ` +
            'include more surrounding text so that it matches exactly once',
        );
      }
      // Sliced rather than String.replace, which would interpret `$&` and the like in new_string.
      const updated =
        content.slice(0, first) + input.new_string + content.slice(first + input.old_string.length);
      await writeTextFile(workspace, file, updated, limits);
      return `Edited ${file.relative} at line ${lineAt(content, first)}.`;
    },
  });
}

export function moveFileTool(workspace: Workspace) {
  return defineTool({
    workspace,
    description:
      'Move or rename a file or directory. The destination must not exist yet; missing parent ' +
      'directories are created. Remember to update links and navigation entries that point at the old path.',
    schema: Type.Object(
      {
        from: PathParam(`Current path. ${REPO_PATH}`),
        to: PathParam('New path, relative to the repository root.'),
      },
      { additionalProperties: false },
    ),
    run: async (input) => {
      const source = await workspace.entry(input.from, 'from');
      const destination = await workspace.target(input.to, 'to');
      if (destination.exists) {
        throw new ToolError(`${destination.relative} already exists; delete it first or choose another name`);
      }
      if (destination.relative.startsWith(`${source.relative}/`)) {
        throw new ToolError(`cannot move ${source.relative} into itself`);
      }
      await workspace.checkLinksMove(source, destination);
      await workspace.ensureParent(destination);
      await rename(source.real, destination.real);
      return `Moved ${source.relative} to ${destination.relative}.`;
    },
  });
}

export function deleteFileTool(workspace: Workspace) {
  return defineTool({
    workspace,
    description:
      'Delete one file. Directories are not deleted; delete their files one by one. Remember to remove ' +
      'navigation entries and links that point at the deleted page.',
    schema: Type.Object({ path: PathParam(REPO_PATH) }, { additionalProperties: false }),
    run: async (input) => {
      const entry = await workspace.entry(input.path);
      if (entry.kind === 'directory') {
        throw new ToolError(`${entry.relative} is a directory; delete_file deletes single files`);
      }
      await unlink(entry.real);
      return `Deleted ${entry.relative}.`;
    },
  });
}
