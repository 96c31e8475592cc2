import { type ListUpdate, updateCrawlerRangeLists } from '../../app/update-crawler-ranges.ts';
import { loadConfig } from '../../config/config.ts';
import { systemClock } from '../../domain/clock.ts';
import { DEFAULT_DOWNLOAD_LIMITS, downloadList } from '../../integrations/crawler-ranges/download-list.ts';
import { openStorage } from '../../storage/database.ts';
import { migrate } from '../../storage/migrate.ts';
import { cliIo } from '../io.ts';
import { print, table } from '../output.ts';

/**
 * `docwright analytics update-lists`: fetch the operators' published crawler IP ranges into the
 * main database. Servers and imports started afterwards, on every node, verify agents with them.
 */
export async function analyticsUpdateListsCommand(options: {
  json: boolean;
  sourceUrlOverride?: string | undefined;
}): Promise<void> {
  const config = loadConfig(cliIo().env);
  const baseUrl = options.sourceUrlOverride;
  if (baseUrl !== undefined && !/^https?:\/\/[^/]/.test(baseUrl)) {
    throw new Error(`--source-url-override must be an http:// or https:// URL (got "${baseUrl}")`);
  }
  const storage = openStorage(config.database);
  let lists: ListUpdate[];
  try {
    await migrate(storage, config.database);
    lists = await updateCrawlerRangeLists({
      storage,
      clock: systemClock,
      dataDir: config.dataDir,
      baseUrl,
      // A mirror given on purpose may be plain HTTP (a local test server); published URLs are HTTPS.
      fetchText: (url) => downloadList(url, { ...DEFAULT_DOWNLOAD_LIMITS, allowHttp: baseUrl !== undefined }),
    });
  } finally {
    await storage.close();
  }
  const result = { storedIn: 'main database' as const, lists };
  print(options.json, result, render);
  if (lists.some((l) => l.status === 'failed')) cliIo().exitCode = 1;
}

function render({ lists }: { lists: ListUpdate[] }): string {
  const rows = lists.map((l) => [
    l.file,
    l.operator,
    l.status,
    l.status === 'failed' ? `${l.before} (kept)` : `${l.before} → ${l.after} (+${l.added} −${l.removed})`,
    l.creationTime ?? '',
  ]);
  const lines = [table(['LIST', 'OPERATOR', 'STATUS', 'PREFIXES', 'PUBLISHED'], rows)];
  for (const l of lists) if (l.error) lines.push(`Error: ${l.error}`);
  const changed = lists.filter((l) => l.status === 'updated').length;
  lines.push(
    changed === 0
      ? `No list changed (${lists.length} lists).`
      : `${changed} of ${lists.length} lists changed, stored in the main database. Running servers use them within the hour (restart them to use them now); running imports do not.`,
  );
  return lines.join('\n');
}
