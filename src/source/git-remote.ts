/**
 * A git URL split into what may be shown or written to disk and what must not. Credentials in the URL's user part
 * (`https://user:token@host/...`) never reach `.git/config`, a command line (`ps`) or a message: git is given the URL
 * without them, and a credential helper that answers them only for the URL's own origin (its scheme, host and port),
 * through the environment (`GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_n`, `GIT_CONFIG_VALUE_n`). A redirect to another origin
 * gets nothing, as plain `git fetch` with the same URL. Values in the query string (`?private_token=...`) cannot move
 * out of the URL, so they stay in it and are hidden wherever the URL is shown.
 */
import { createRedactor, decode, secretsInUrl, type Redact } from '../redact.js';

export interface GitRemote {
  /** The URL git is given and writes to `.git/config`: without user credentials. */
  url: string;
  /** The URL as logs, errors and `/status` show it: credentials and credential-looking query values as `***`. */
  display: string;
  /** Environment entries to add to git's (the credential helper and what it answers, after any `GIT_CONFIG_*` already set). */
  env: Record<string, string>;
  /** Git's messages without the URL's secrets (the one redactor, given them). */
  redact: Redact;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * A credential helper (run by git through `sh`) that answers `get` only when git asks for the origin the URL was given
 * for; the values come from git's environment, never from its command line.
 */
const HELPER = '!f() { test "$1" = get || exit 0; p=; h=; while IFS= read -r l; do case "$l" in protocol=*) p=${l#protocol=};; host=*) h=${l#host=};; esac; done; ' +
  'if [ "$p" = "$PPS_GIT_PROTOCOL" ] && [ "$h" = "$PPS_GIT_HOST" ]; then printf \'username=%s\\npassword=%s\\n\' "$PPS_GIT_USERNAME" "$PPS_GIT_PASSWORD"; fi; }; f';

export function gitRemote(raw: string, env: NodeJS.ProcessEnv): GitRemote {
  const redact = createRedactor(secretsInUrl(raw));
  const parsed = SCHEME.test(raw) ? parseUrl(raw) : null;
  if (parsed === null) return { url: raw, display: redact(raw), env: {}, redact };
  const isHttp = parsed.protocol === 'http:' || parsed.protocol === 'https:';
  if (!isHttp || (parsed.username === '' && parsed.password === '')) return { url: raw, display: redact(raw), env: {}, redact };
  const url = new URL(parsed.href);
  url.username = '';
  url.password = '';
  const index = Number.parseInt(env['GIT_CONFIG_COUNT'] ?? '0', 10) || 0;
  const extra: Record<string, string> = {
    GIT_CONFIG_COUNT: String(index + 2),
    // An empty helper first: no helper of the machine's config stores these credentials or answers instead.
    [`GIT_CONFIG_KEY_${index}`]: 'credential.helper',
    [`GIT_CONFIG_VALUE_${index}`]: '',
    [`GIT_CONFIG_KEY_${index + 1}`]: 'credential.helper',
    [`GIT_CONFIG_VALUE_${index + 1}`]: HELPER,
    PPS_GIT_PROTOCOL: parsed.protocol.slice(0, -1),
    PPS_GIT_HOST: parsed.host,
    PPS_GIT_USERNAME: decode(parsed.username),
    PPS_GIT_PASSWORD: decode(parsed.password),
  };
  return { url: url.href, display: redact(raw), env: extra, redact };
}

function parseUrl(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

