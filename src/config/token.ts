import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import type { Config } from './types.js';

/**
 * The API token: `API_TOKEN`, else the content of `api.token-file`. A token travels in an HTTP header, so it must be
 * printable ASCII without spaces; one trailing line end (as editors and `echo` leave it) is dropped, anything else
 * is refused here, at start-up, rather than failing every request. Errors name where the token came from and what
 * is wrong with it, never the token.
 */
export async function resolveToken(config: Config, env: NodeJS.ProcessEnv): Promise<string> {
  const fromEnv = env.API_TOKEN;
  if (fromEnv !== undefined && fromEnv.trim() !== '') return checkedToken(fromEnv, 'API_TOKEN');
  const file = config.api.tokenFile;
  if (file === null) throw new UsageError('no API token: set API_TOKEN, or api.token-file in the config');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read api.token-file ${file}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  if (text.trim() === '') throw new UsageError(`api.token-file ${file} is empty`);
  return checkedToken(text, `api.token-file ${file}`);
}

/** `raw` without one trailing line end, when every other character may go in a header; else a UsageError naming `where`. */
export function checkedToken(raw: string, where: string): string {
  return checkedSecret(raw.replace(/\r?\n$/, ''), { where, what: 'the API token' });
}

/** Fewest characters of a secret that the daemon's endpoints check (status, control, webhook): a shorter one can be guessed. */
export const MIN_ENDPOINT_SECRET_LENGTH = 16;

/**
 * A secret from the environment variable `name` that guards one of the daemon's endpoints, or null when it is unset
 * or empty. It must be one line of printable ASCII without spaces (it travels in a header) and at least
 * MIN_ENDPOINT_SECRET_LENGTH characters long; else a UsageError names the variable, never the value.
 */
export function endpointSecret(env: NodeJS.ProcessEnv, name: string, what: string): string | null {
  const value = env[name];
  if (value === undefined || value === '') return null;
  return checkedSecret(value, { where: name, what, minLength: MIN_ENDPOINT_SECRET_LENGTH });
}

/** The one check of a token or secret: printable ASCII without spaces, and at least `minLength` characters. */
function checkedSecret(value: string, { where, what, minLength = 1 }: { where: string; what: string; minLength?: number }): string {
  const problem = tokenProblem(value) ?? (value.length < minLength ? `has ${value.length} characters, fewer than ${minLength}` : null);
  if (problem === null) return value;
  const rule = minLength > 1 ? `one line of at least ${minLength} printable ASCII characters without spaces (e.g. \`openssl rand -hex 24\`)` : 'one line of printable ASCII without spaces';
  throw new UsageError(`${where}: ${what} ${problem}; it must be ${rule} (the ${what.replace(/^the /, '')} is not shown)`);
}

/** What makes `token` unusable as a bearer token, or null. Says where, never what the token holds. */
export function tokenProblem(token: string): string | null {
  if (token === '') return 'is empty';
  for (let i = 0; i < token.length; i += 1) {
    const code = token.charCodeAt(i);
    if (code >= 0x21 && code <= 0x7e) continue;
    const at = `at character ${i + 1} of ${token.length}`;
    if (code === 0x0a || code === 0x0d) return `contains a line break ${at}`;
    if (code === 0x20 || code === 0x09) return `contains a space ${at}`;
    if (code < 0x20 || code === 0x7f) return `contains a control character ${at}`;
    return `contains a non-ASCII character ${at} (a typographic quote or dash from a copy-paste?)`;
  }
  return null;
}
