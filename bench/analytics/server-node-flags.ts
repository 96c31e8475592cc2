// The Node flags the benchmarks' server runs with: those `npm start` and bin/docwright.js's
// shebang give `docwright serve`, so the server's memory is measured as users run it.
// BENCH_SERVER_NODE_FLAGS replaces them (space-separated; empty for Node's defaults), to
// compare settings in one sitting.
const override = process.env.BENCH_SERVER_NODE_FLAGS;

export const SERVER_NODE_FLAGS: readonly string[] =
  override === undefined
    ? ['--max-semi-space-size=16', '--heap-growing-percent=100']
    : override.split(/\s+/).filter(Boolean);
