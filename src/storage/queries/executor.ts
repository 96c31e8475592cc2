import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

/** A database handle or an open transaction: every query function accepts either. */
export type Executor = Kysely<Database>;
