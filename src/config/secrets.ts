import { readFileSync } from 'node:fs';
import { secretsInUrl } from '../redact.js';
import type { Config, ParameterAllowance } from './types.js';

/** Variables that hold a secret whatever the config says. */
const SECRET_ENV = ['API_TOKEN', 'CONTROL_TOKEN', 'STATUS_TOKEN', 'WEBHOOK_SECRET', 'GITHUB_TOKEN'];
/** Proxy variables: their URL's credentials. */
const PROXY_ENV = ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy'];
/**
 * Variables of the tool's own that may carry a credential: git settings (`GIT_CONFIG_KEY_n`, `GIT_CONFIG_VALUE_n`, a
 * credential header), the API's URL and the leader-election store's endpoints (a user and password in the URL).
 */
const CREDENTIAL_ENV = ['GIT_CONFIG_*', 'API_BASE_URL', 'LEADER_ELECTION_*'];
/** The pod's service account: the token that writes the leader-election Lease, and its namespace and CA. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** Folders of the host itself: the process's environment and memory (`/proc/self/environ`), devices, kernel state. */
const HOST_FOLDERS = ['/proc', '/sys', '/dev'];

/**
 * The variables and files this tool reads for itself, which a policy set's parameters may never read, whatever the
 * operator allows (`reserved` of `ParameterAllowance`): the secrets every run holds, then those the config names (the
 * webhook secret's variable, the token file, each notification's URL and secret). `*` ends a prefix.
 */
export function ownSecretSources(config: Config | null): ParameterAllowance['reserved'] {
  const env = [...SECRET_ENV, ...PROXY_ENV, ...CREDENTIAL_ENV];
  const files = [...HOST_FOLDERS, SERVICE_ACCOUNT_DIR, SERVICE_ACCOUNT_DIR.replace(/^\/var/, '')];
  if (config === null) return { env, files };
  env.push(config.webhookSecretEnv);
  if (config.api.tokenFile !== null) files.push(config.api.tokenFile);
  for (const receiver of config.notifications ?? []) {
    env.push(...[receiver.secretEnv, receiver.urlEnv].filter((name): name is string => name !== null));
    if (receiver.urlFile !== null) files.push(receiver.urlFile);
  }
  return { env: [...new Set(env)], files: [...new Set(files)] };
}

/**
 * `config` with each source's parameter allowance knowing the config's own secrets (`reserved`). A source that allows
 * nothing has none: nothing is read for it.
 */
export function withOwnSecrets(config: Config): Config {
  const reserved = ownSecretSources(config);
  return { ...config, sources: config.sources.map((source) => (source.parameters === undefined ? source : { ...source, parameters: { ...source.parameters, reserved } })) };
}

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
