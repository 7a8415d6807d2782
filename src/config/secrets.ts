import { readFileSync } from 'node:fs';
import { secretsInUrl } from '../redact.js';
import type { Config } from './types.js';

/** Variables that hold a secret whatever the config says. */
const SECRET_ENV = ['API_TOKEN', 'CONTROL_TOKEN', 'STATUS_TOKEN', 'WEBHOOK_SECRET', 'GITHUB_TOKEN'];
/** Proxy variables: their URL's credentials. */
const PROXY_ENV = ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy'];

/**
 * Every secret known at start-up, for the one redactor (redact.ts): the API token (from the environment or its file),
 * the control, status and webhook tokens, the credentials and query values of the git URLs, of the API URL and of the
 * proxy URLs, and each notification receiver's URL (a Slack or webhook URL is itself the secret) and secret. `config`
 * is null before a config is read. A file that cannot be read adds nothing: its reader reports it.
 */
export function knownSecrets(config: Config | null, env: NodeJS.ProcessEnv): string[] {
  const secrets: string[] = [];
  const fromEnv = (name: string) => {
    const value = env[name]?.trim();
    if (value !== undefined && value !== '') secrets.push(value);
  };
  for (const name of SECRET_ENV) fromEnv(name);
  for (const name of PROXY_ENV) secrets.push(...secretsInUrl(env[name] ?? ''));
  if (config === null) return secrets;
  fromEnv(config.webhookSecretEnv);
  if (config.api.tokenFile !== null) secrets.push(...fileText(config.api.tokenFile));
  secrets.push(...secretsInUrl(config.api.url));
  for (const source of config.sources) if (source.git !== null) secrets.push(...secretsInUrl(source.git.url));
  for (const receiver of config.notifications ?? []) {
    if (receiver.secretEnv !== null) fromEnv(receiver.secretEnv);
    const urls = receiver.urlEnv !== null ? [env[receiver.urlEnv]?.trim() ?? ''] : receiver.urlFile !== null ? fileText(receiver.urlFile) : [];
    const secretPath = receiver.type === 'slack' || receiver.type === 'webhook';
    for (const url of urls.filter((u) => u !== '')) secrets.push(url, ...secretsInUrl(url), ...(secretPath ? pathOf(url) : []));
  }
  return secrets;
}

function fileText(file: string): string[] {
  try {
    return [readFileSync(file, 'utf8').trim()];
  } catch {
    return [];
  }
}

/** A receiver URL's path, which is the secret part of a Slack or a chat webhook URL (`/services/T000/B000/XXXX`). */
function pathOf(url: string): string[] {
  try {
    const { pathname } = new URL(url);
    return pathname.length > 1 ? [pathname] : [];
  } catch {
    return [];
  }
}
