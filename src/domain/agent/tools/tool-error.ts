/**
 * An error meant for the model: its message is phrased for the model to read and act on,
 * and never carries an absolute host path or anything else from outside the working copy.
 */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

interface NodeError {
  code: string;
}

function isNodeError(error: unknown): error is Error & NodeError {
  return error instanceof Error && typeof (error as Partial<NodeError>).code === 'string';
}

/**
 * Turns a failure into the text of a tool result. Tool errors go back to the model as
 * readable results instead of being thrown through the agent loop; file system errors are
 * reworded around the repository-relative path so host paths never reach the model.
 */
export function describeToolFailure(error: unknown, path?: string): string {
  if (error instanceof ToolError) {
    // Messages can quote the model's own input; keep a pasted novel from coming back whole.
    const message = error.message.length > 2_000 ? `${error.message.slice(0, 2_000)}…` : error.message;
    return `Error: ${message}`;
  }
  if (error instanceof Error && error.name === 'AbortError') return 'Error: cancelled';
  const subject = path === undefined ? 'the file' : path;
  if (isNodeError(error)) {
    switch (error.code) {
      case 'ENOENT':
        return `Error: ${subject} does not exist`;
      case 'EISDIR':
        return `Error: ${subject} is a directory, not a file`;
      case 'ENOTDIR':
        return `Error: a parent of ${subject} is a file, not a directory`;
      case 'EEXIST':
        return `Error: ${subject} already exists`;
      case 'ENOTEMPTY':
        return `Error: ${subject} is a directory that is not empty`;
      case 'EACCES':
      case 'EPERM':
        return `Error: permission denied for ${subject}`;
      case 'ELOOP':
        return `Error: ${subject} is a symbolic link, which this tool does not follow`;
      case 'EINVAL':
        return `Error: invalid operation on ${subject}`;
      default:
        return `Error: ${error.code} on ${subject}`;
    }
  }
  return 'Error: the tool failed unexpectedly';
}
