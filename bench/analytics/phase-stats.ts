// One phase of the benchmark server, measured alone: the first SIGUSR2 starts the phase, the
// second ends it (run.ts sends them around its HTTP ingestion). Printed to stderr at the end:
// this thread's CPU, how busy its event loop was, and its garbage collection by kind. Throughput
// varies by 10–20 % from run to run on this machine; the CPU of the thread that stores views,
// which bounds it, far less. With a profile file, also a CPU profile of the phase alone,
// without the import's replay and the exports.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver, performance } from 'node:perf_hooks';

const GC_KINDS: Record<number, string> = { 1: 'minor', 2: 'major', 4: 'incremental', 8: 'weak callbacks' };

export function measurePhaseOnSignal(profileFile: string | undefined): void {
  const session = profileFile ? new Session() : null;
  session?.connect();
  let inPhase = false;
  let cpuAtStart = process.threadCpuUsage();
  let loopAtStart = performance.eventLoopUtilization();
  const pauses = new Map<number, { count: number; ms: number }>();
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail: { kind: number } }).detail.kind;
      const sum = pauses.get(kind) ?? { count: 0, ms: 0 };
      sum.count++;
      sum.ms += entry.duration;
      pauses.set(kind, sum);
    }
  });
  process.on('SIGUSR2', () => {
    inPhase = !inPhase;
    if (inPhase) {
      pauses.clear();
      gc.observe({ entryTypes: ['gc'] });
      cpuAtStart = process.threadCpuUsage();
      loopAtStart = performance.eventLoopUtilization();
      session
        ?.post('Profiler.enable')
        .then(() => session.post('Profiler.start'))
        .catch((error: unknown) => process.stderr.write(`phase profile: ${String(error)}\n`));
      return;
    }
    const cpu = process.threadCpuUsage(cpuAtStart);
    const loop = performance.eventLoopUtilization(loopAtStart);
    gc.disconnect();
    const collections = [...pauses].map(
      ([kind, { count, ms }]) => `${GC_KINDS[kind] ?? kind} ${count}× ${Math.round(ms)} ms`,
    );
    process.stderr.write(
      `phase main thread: CPU ${Math.round((cpu.user + cpu.system) / 1000)} ms, event loop busy ${(loop.utilization * 100).toFixed(1)} %, garbage collection ${collections.join(', ') || 'none'}\n`,
    );
    session
      ?.post('Profiler.stop')
      .then(({ profile }) => writeFileSync(profileFile as string, JSON.stringify(profile)))
      .catch((error: unknown) => process.stderr.write(`phase profile: ${String(error)}\n`));
  });
}
