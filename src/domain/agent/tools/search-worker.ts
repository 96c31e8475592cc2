// Worker-thread entry point for search: the main thread can terminate it when a regular
// expression runs away (catastrophic backtracking), which it could not do to its own loop.
import { parentPort, workerData } from 'node:worker_threads';
import picomatch from 'picomatch';
import { type SearchRequest, searchFiles } from './search-files.ts';

const request = workerData as SearchRequest;
const matchesGlob = request.glob === undefined ? () => true : picomatch(request.glob, { dot: true });
searchFiles(request, matchesGlob).then(
  (result) => parentPort?.postMessage({ ok: true, result }),
  (error: unknown) =>
    parentPort?.postMessage({ ok: false, message: error instanceof Error ? error.name : 'failed' }),
);
