import { processIo } from './io.ts';
import { main } from './program.ts';

// The `docwright` process (bin/docwright.js): the command line against the process's own
// streams and environment.

// A reader of our output that goes away (`docwright keys list | head -1`, a supervisor that
// stopped) ends that output, not the process: a server keeps serving.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

process.exitCode = await main(process.argv, processIo());
