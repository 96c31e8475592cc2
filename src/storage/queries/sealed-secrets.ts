import type { Executor } from './executor.ts';

/** Where secrets sealed with the secret box are stored, for people reading a warning. */
export type SealedSecretPlace =
  | 'webhook signing secret'
  | 'automation webhook secret'
  | 'code-host credentials';

/**
 * Every stored text that holds sealed secrets, with what it is: the webhook endpoints' signing
 * secrets, the code-change automations' webhook secrets and the projects' settings (their
 * code-host credentials are sealed inside the JSON). Read once at start, to check that the
 * key in use is the one they were sealed with.
 */
export async function textsWithSealedSecrets(
  db: Executor,
): Promise<Array<{ place: SealedSecretPlace; text: string }>> {
  const [endpoints, automations, projects] = await Promise.all([
    db.selectFrom('webhook_endpoints').select(['secret', 'previous_secret']).execute(),
    db
      .selectFrom('automations')
      .select(['webhook_secret', 'previous_webhook_secret'])
      .where('webhook_secret', 'is not', null)
      .execute(),
    db.selectFrom('projects').select('settings').execute(),
  ]);
  return [
    ...endpoints.flatMap((row) =>
      [row.secret, row.previous_secret].flatMap((text) =>
        text ? [{ place: 'webhook signing secret' as const, text }] : [],
      ),
    ),
    ...automations.flatMap((row) =>
      [row.webhook_secret, row.previous_webhook_secret].flatMap((text) =>
        text ? [{ place: 'automation webhook secret' as const, text }] : [],
      ),
    ),
    ...projects.map((row) => ({ place: 'code-host credentials' as const, text: row.settings })),
  ];
}
