import { loadConfig } from '../../config/config.ts';
import { openStorage } from '../../storage/database.ts';
import { migrate } from '../../storage/migrate.ts';
import { cliIo } from '../io.ts';
import { print } from '../output.ts';

export async function migrateCommand(options: { json: boolean }): Promise<void> {
  const config = loadConfig(cliIo().env);
  const storage = openStorage(config.database);
  try {
    const report = await migrate(storage, config.database);
    print(options.json, report, (r) =>
      r.applied.length ? `Applied migrations: ${r.applied.join(', ')}` : 'Database is up to date',
    );
  } finally {
    await storage.close();
  }
}
