import type { Executor } from './executor.ts';

/** Every refreshed crawler range list: its file name and its text as published. */
export async function listCrawlerRangeLists(db: Executor): Promise<Array<{ file: string; body: string }>> {
  return db.selectFrom('crawler_range_lists').select(['file', 'body']).orderBy('file').execute();
}

/** Stores a list's new text, over the one it had. */
export async function saveCrawlerRangeList(
  db: Executor,
  row: { file: string; body: string; updatedAt: string },
): Promise<void> {
  await db
    .insertInto('crawler_range_lists')
    .values({ file: row.file, body: row.body, updated_at: row.updatedAt })
    .onConflict((oc) => oc.column('file').doUpdateSet({ body: row.body, updated_at: row.updatedAt }))
    .execute();
}
