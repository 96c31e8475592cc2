import { cliIo } from './io.ts';

/** Everything on standard input: for secrets, which must not be arguments (they show in `ps` and shell history). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of cliIo().stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
