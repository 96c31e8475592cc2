import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** How to get the server, for the message when it is missing. */
export const CLICKHOUSE_INSTALL_HINT =
  'ClickHouse is needed by the analytics tests: `apt-get install -y clickhouse-server clickhouse-client` ' +
  "(Debian's 18.16; .ci/run installs it), or set DOCWRIGHT_TEST_CLICKHOUSE_URL=http://user:pass@host:8123 to use a running server.";

export interface RunningClickHouse {
  url: string;
  pid: number;
  dataDir: string;
  stop(): Promise<void>;
}

const BINARY = 'clickhouse-server';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A configuration of its own: the packaged one wants /var/lib, /var/log and fixed ports. */
function configXml(dir: string, httpPort: number, tcpPort: number): string {
  const data = path.join(dir, 'data');
  return `<?xml version="1.0"?>
<yandex>
  <logger>
    <level>warning</level>
    <log>${dir}/log/server.log</log>
    <errorlog>${dir}/log/server.err.log</errorlog>
    <size>10M</size>
    <count>2</count>
  </logger>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>${data}/</path>
  <tmp_path>${data}/tmp/</tmp_path>
  <user_files_path>${data}/user_files/</user_files_path>
  <format_schema_path>${data}/format_schemas/</format_schema_path>
  <users_config>${dir}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>268435456</mark_cache_size>
  <max_concurrent_queries>200</max_concurrent_queries>
</yandex>
`;
}

const USERS_XML = `<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>4000000000</max_memory_usage></default></profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`;

/**
 * Starts a ClickHouse server as an ordinary process on free loopback ports, with its data in
 * a temporary directory (or `dataDir`), and waits until it answers. Throws with an install hint
 * when the binary is missing.
 */
export async function startClickHouse(options: { dataDir?: string } = {}): Promise<RunningClickHouse> {
  const which = spawnSync('sh', ['-c', `command -v ${BINARY}`], { encoding: 'utf8' });
  if (which.status !== 0) throw new Error(`${BINARY} was not found. ${CLICKHOUSE_INSTALL_HINT}`);
  const dir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'docwright-clickhouse-'));
  mkdirSync(path.join(dir, 'log'), { recursive: true });
  mkdirSync(path.join(dir, 'data', 'tmp'), { recursive: true });
  const httpPort = await freePort();
  const tcpPort = await freePort();
  writeFileSync(path.join(dir, 'config.xml'), configXml(dir, httpPort, tcpPort));
  writeFileSync(path.join(dir, 'users.xml'), USERS_XML);
  const child: ChildProcess = spawn(BINARY, [`--config-file=${path.join(dir, 'config.xml')}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${httpPort}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(
        `${BINARY} exited with ${child.exitCode} while starting (log in ${dir}/log): ${stderr}`,
      );
    }
    try {
      const res = await fetch(`${url}/ping`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${BINARY} did not answer on ${url} within 60 s (log in ${dir}/log): ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    pid: child.pid ?? 0,
    dataDir: dir,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await once(child, 'exit');
        clearTimeout(timer);
      }
      if (!options.dataDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
