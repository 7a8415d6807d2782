/**
 * The proxy of every outgoing request (the API, downloads and their redirect targets, notifications, the pull-request
 * comment), taken from `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` (lower case first, as curl and undici read them),
 * the variables git reads too. Requests go through undici's `EnvHttpProxyAgent`, given the values read here from the
 * environment passed in, never from the process's own.
 */
import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import { UsageError } from '../errors.js';
import { createRedactor, secretsInUrl } from '../redact.js';

export interface ProxySettings {
  /** For http:// URLs; null: none. */
  http: string | null;
  /** For https:// URLs; null: the http one. */
  https: string | null;
  /** `NO_PROXY` as given: host names (a leading `.` or `*.` matches subdomains), `host:port`, or `*`. */
  noProxy: string;
}

export const NO_PROXY: ProxySettings = { http: null, https: null, noProxy: '' };

/** Never proxied, as Go's clients (the vendor's among them) never proxy them: this machine itself. */
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/** The proxy settings of `env`; a proxy URL that is not an http(s) URL is a UsageError naming the variable, never its value. */
export function proxySettings(env: NodeJS.ProcessEnv): ProxySettings {
  const pick = (name: string): string | null => {
    const lower = env[name.toLowerCase()];
    const value = lower !== undefined && lower.trim() !== '' ? lower : env[name];
    if (value === undefined || value.trim() === '') return null;
    const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value.trim()) ? value.trim() : `http://${value.trim()}`;
    let url: URL;
    try {
      url = new URL(withScheme);
    } catch {
      throw new UsageError(`${name} is not a URL (its value is not shown): give it as http://host:port`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${name} must be an http:// or https:// proxy URL, not ${url.protocol}// (its value is not shown)`);
    return withScheme;
  };
  const noProxy = env.no_proxy !== undefined && env.no_proxy.trim() !== '' ? env.no_proxy : (env.NO_PROXY ?? '');
  if (noProxy.trim() === '*') return NO_PROXY;
  return { http: pick('HTTP_PROXY'), https: pick('HTTPS_PROXY'), noProxy: [noProxy, ...LOOPBACK].filter((e) => e.trim() !== '').join(',') };
}

/** The proxy a request to `url` goes through, or null: none is set for its scheme, or NO_PROXY names its host. */
export function proxyFor(url: string | URL, settings: ProxySettings): string | null {
  const target = new URL(url);
  const proxy = target.protocol === 'https:' ? (settings.https ?? settings.http) : settings.http;
  if (proxy === null) return null;
  const host = target.hostname.toLowerCase();
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  return bypassed(host, port, settings.noProxy) ? null : proxy;
}

/** NO_PROXY's rules, as undici's EnvHttpProxyAgent applies them. */
function bypassed(host: string, port: number, noProxy: string): boolean {
  const entries = noProxy.split(/[,\s]/).filter((e) => e !== '');
  if (noProxy.trim() === '*') return true;
  for (const entry of entries) {
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const name = (parsed?.[1] ?? entry).replace(/^\*?\./, '').toLowerCase();
    if (parsed !== null && Number(parsed[2]) !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/**
 * The dispatcher of outgoing requests: a plain keep-alive agent when no proxy is set, else undici's
 * EnvHttpProxyAgent with these settings (`agent`: the options of every connection pool, proxied or not).
 */
export function outgoingDispatcher(settings: ProxySettings, agent: Agent.Options = {}): Dispatcher {
  if (settings.http === null && settings.https === null) return new Agent(agent);
  // Empty strings, not undefined: undici would read the process's environment otherwise.
  // proxyTunnel false: an http:// URL goes to the proxy as an absolute-URI request, as Go's and curl's clients send it
  // (many proxies take CONNECT to port 443 only); https:// URLs are tunnelled with CONNECT either way.
  return new EnvHttpProxyAgent({ ...agent, proxyTunnel: false, httpProxy: settings.http ?? '', httpsProxy: settings.https ?? settings.http ?? '', noProxy: settings.noProxy });
}

/** A proxy URL as logs and messages may show it: `http://***@proxy:3128`. */
export function shownProxy(proxy: string): string {
  return createRedactor(secretsInUrl(proxy))(proxy);
}

/** The user name and password of the proxy URLs, as they may appear in an error's text (for redaction). */
export function proxySecrets(settings: ProxySettings): string[] {
  const secrets: string[] = [];
  for (const proxy of [settings.http, settings.https]) {
    if (proxy === null) continue;
    const url = new URL(proxy);
    for (const part of [url.password, url.username]) {
      if (part === '') continue;
      secrets.push(part);
      const decoded = safeDecode(part);
      if (decoded !== part) secrets.push(decoded);
    }
  }
  return secrets;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
