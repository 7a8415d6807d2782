/**
 * A git URL split into what may be shown or written to disk and what must not. Credentials in the URL's user part
 * (`https://user:token@host/...`) become an `Authorization` header handed to git through the environment
 * (`GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_n`, `GIT_CONFIG_VALUE_n`), scoped to the repository's URL: they never reach
 * `.git/config`, a command line (`ps`) or a message. Values in the query string (`?private_token=...`) cannot move
 * out of the URL, so they stay in it and are hidden wherever the URL is shown.
 */
export interface GitRemote {
  /** The URL git is given and writes to `.git/config`: without user credentials. */
  url: string;
  /** The URL as logs, errors and `/status` show it: credentials and query values as `***`. */
  display: string;
  /** Environment entries to add to git's (the header, after any `GIT_CONFIG_*` entries already set). */
  env: Record<string, string>;
  /** Every secret the URL holds (longest first), as it may appear in git's own messages; `scrub` hides them. */
  secrets: string[];
}

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const HIDDEN = '***';

export function gitRemote(raw: string, env: NodeJS.ProcessEnv): GitRemote {
  const parsed = SCHEME.test(raw) ? parseUrl(raw) : null;
  if (parsed === null) return { url: raw, display: raw, env: {}, secrets: [] };
  const secrets: string[] = [];
  const isHttp = parsed.protocol === 'http:' || parsed.protocol === 'https:';
  const user = decode(parsed.username);
  const password = decode(parsed.password);
  const display = new URL(parsed.href);
  for (const value of parsed.searchParams.values()) secrets.push(value, encodeURIComponent(value));
  if (parsed.search !== '') display.search = [...parsed.searchParams.keys()].map((key) => `${encodeURIComponent(key)}=${HIDDEN}`).join('&');
  const extra: Record<string, string> = {};
  const url = new URL(parsed.href);
  if (password !== '' || (isHttp && user !== '')) {
    // A user name alone is the token (`https://<token>@host`); beside a password it is a name.
    secrets.push(password, parsed.password, ...(isHttp && password === '' ? [user, parsed.username] : []));
    display.username = isHttp ? HIDDEN : parsed.username;
    display.password = isHttp ? '' : HIDDEN;
    if (isHttp) {
      url.username = '';
      url.password = '';
      const basic = Buffer.from(`${user}:${password}`).toString('base64');
      secrets.push(basic);
      const index = Number.parseInt(env['GIT_CONFIG_COUNT'] ?? '0', 10) || 0;
      extra['GIT_CONFIG_COUNT'] = String(index + 1);
      extra[`GIT_CONFIG_KEY_${index}`] = `http.${url.href}.extraHeader`;
      extra[`GIT_CONFIG_VALUE_${index}`] = `Authorization: Basic ${basic}`;
    }
  }
  return { url: url.href, display: display.href, env: extra, secrets: secrets.filter((s) => s.length >= 3).sort((a, b) => b.length - a.length) };
}

/** `text` with the URL as given shown as `display`, and every other secret of `remote` replaced by `***`. */
export function scrub(text: string, remote: GitRemote, raw: string): string {
  let out = text.split(raw).join(remote.display);
  for (const secret of remote.secrets) out = out.split(secret).join(HIDDEN);
  return out;
}

function parseUrl(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
