import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import type { Config } from './types.js';

/** The API token: `API_TOKEN`, else the content of `api.token-file`. Errors name where it was looked for, never the token. */
export async function resolveToken(config: Config, env: NodeJS.ProcessEnv): Promise<string> {
  const fromEnv = env.API_TOKEN?.trim();
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const file = config.api.tokenFile;
  if (file === null) throw new UsageError('no API token: set API_TOKEN, or api.token-file in the config');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read api.token-file ${file}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  const token = text.trim();
  if (token === '') throw new UsageError(`api.token-file ${file} is empty`);
  return token;
}
