/**
 * The proxy of every outgoing request (the API, downloads and their redirect targets, notifications, the pull-request
 * comment) and of git, read once from `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` (either case, lower case first, as
 * curl and undici read them) of the environment passed in, never from the process's own. Whether a URL goes through
 * the proxy is decided here only (`proxyFor`): the dispatcher of HTTP requests routes each request by it, and git is
 * given its answer for the repository's URL (`gitProxyEnv`).
 */
import { BlockList, isIP } from 'node:net';
import { Agent, Dispatcher, Pool, ProxyAgent } from 'undici';
import { UsageError } from '../errors.js';
import { isLoopbackHost } from '../host-port.js';
import { createRedactor, decode, secretsInUrl } from '../redact.js';

export interface ProxySettings {
  /** For http:// URLs; null: none. */
  http: string | null;
  /** For https:// URLs; null: the http one. */
  https: string | null;
  /**
   * `NO_PROXY` as given, with loopback added: host names (a leading `.` or `*.` is allowed; subdomains match too),
   * `host:port`, IP addresses (IPv6 bare or in brackets), CIDR ranges (`10.0.0.0/8`, `fd00::/8`), or `*`.
   */
  noProxy: string;
}

export const NO_PROXY: ProxySettings = { http: null, https: null, noProxy: '' };

/**
 * Never proxied, as Go's clients (the vendor's among them) never proxy them: this machine itself, all of it. A request
 * asks `isLoopbackHost` (host-port.ts, the one definition: every IPv6 form of 127.0.0.0/8 too); this list is what
 * NO_PROXY carries for git's curl.
 */
const LOOPBACK = ['localhost', '127.0.0.0/8', '::1'];

/** The proxy settings of `env`; a proxy URL that is not an http(s) URL is a UsageError naming the variable, never its value. */
export function proxySettings(env: NodeJS.ProcessEnv): ProxySettings {
  const noProxy = either(env, 'NO_PROXY') ?? '';
  if (noProxy.trim() === '*') return NO_PROXY;
  return { http: proxyUrl(env, 'HTTP_PROXY'), https: proxyUrl(env, 'HTTPS_PROXY'), noProxy: [noProxy, ...LOOPBACK].filter((e) => e.trim() !== '').join(',') };
}

/** The value of `name` in lower case, else in upper case; blank counts as unset. */
function either(env: NodeJS.ProcessEnv, name: string): string | null {
  for (const value of [env[name.toLowerCase()], env[name]]) if (value !== undefined && value.trim() !== '') return value.trim();
  return null;
}

function proxyUrl(env: NodeJS.ProcessEnv, name: string): string | null {
  const value = either(env, name);
  if (value === null) return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  if (!URL.canParse(withScheme)) throw new UsageError(`${name} is not a URL (its value is not shown): give it as http://host:port`);
  const url = new URL(withScheme);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${name} must be an http:// or https:// proxy URL, not ${url.protocol}// (its value is not shown)`);
  return withScheme;
}

/** The proxy a request to `url` goes through, or null: none is set for its scheme, or NO_PROXY (loopback included) names its host. */
export function proxyFor(url: string | URL, settings: ProxySettings): string | null {
  const target = new URL(url);
  const proxy = target.protocol === 'https:' ? (settings.https ?? settings.http) : target.protocol === 'http:' ? settings.http : null;
  if (proxy === null) return null;
  if (isLoopbackHost(target.hostname)) return null;
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  return bypassed(target.hostname, port, settings.noProxy) ? null : proxy;
}

/** The variable a proxy of `url` is read from, for messages: `HTTPS_PROXY` when https:// uses its own. */
export function proxyVariable(url: string | URL, settings: ProxySettings): 'HTTP_PROXY' | 'HTTPS_PROXY' {
  return new URL(url).protocol === 'https:' && settings.https !== null ? 'HTTPS_PROXY' : 'HTTP_PROXY';
}

/** Whether NO_PROXY's entries name `hostname` (as a URL gives it: IPv6 in brackets) at `port`. */
function bypassed(hostname: string, port: number, noProxy: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const family = isIP(host);
  for (const raw of noProxy.split(/[,\s]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (cidr !== null) {
      if (family !== 0 && inRange(host, family, cidr[1] as string, Number(cidr[2]))) return true;
      continue;
    }
    const { name, entryPort } = splitPort(entry);
    if (entryPort !== null && entryPort !== port) continue;
    if (isIP(name) !== 0 || family !== 0) {
      if (family !== 0 && isIP(name) === family && sameAddress(host, name, family)) return true;
      continue;
    }
    const domain = name.replace(/^\*?\./, '');
    if (domain !== '' && (host === domain || host.endsWith(`.${domain}`))) return true;
  }
  return false;
}

/** `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 address; the port null when none is named. */
function splitPort(entry: string): { name: string; entryPort: number | null } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed !== null) return { name: bracketed[1] as string, entryPort: bracketed[2] === undefined ? null : Number(bracketed[2]) };
  if (isIP(entry) === 6) return { name: entry, entryPort: null };
  const withPort = /^([^:]+):(\d+)$/.exec(entry);
  return withPort === null ? { name: entry, entryPort: null } : { name: withPort[1] as string, entryPort: Number(withPort[2]) };
}

function inRange(host: string, family: number, network: string, prefix: number): boolean {
  const networkFamily = isIP(network.replace(/^\[(.*)\]$/, '$1'));
  if (networkFamily === 0 || networkFamily !== family || prefix > (family === 4 ? 32 : 128)) return false;
  const range = new BlockList();
  const type = family === 4 ? 'ipv4' : 'ipv6';
  range.addSubnet(network.replace(/^\[(.*)\]$/, '$1'), prefix, type);
  return range.check(host, type);
}

function sameAddress(host: string, name: string, family: number): boolean {
  const one = new BlockList();
  const type = family === 4 ? 'ipv4' : 'ipv6';
  one.addAddress(name, type);
  return one.check(host, type);
}

/**
 * What git is given so that it reaches `remoteUrl` as the API client would: `http.proxy` set to the proxy `proxyFor`
 * names, or to empty (no proxy at all, whatever git would read from the environment), through git's configuration
 * environment (`GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_n`, `GIT_CONFIG_VALUE_n`, after `configIndex` entries already
 * set), so that the proxy's credentials are on no command line. Only http(s) remotes (nothing for ssh or a path), and
 * only when a proxy variable is set.
 */
export function gitProxyEnv(remoteUrl: string, settings: ProxySettings, configIndex: number): Record<string, string> {
  if (!/^https?:\/\//i.test(remoteUrl) || !URL.canParse(remoteUrl)) return {};
  // No proxy variable at all: git's own settings (a proxy in its config files) stay as they are.
  if (settings.http === null && settings.https === null) return {};
  const proxy = proxyFor(remoteUrl, settings);
  return {
    GIT_CONFIG_COUNT: String(configIndex + 1),
    [`GIT_CONFIG_KEY_${configIndex}`]: 'http.proxy',
    [`GIT_CONFIG_VALUE_${configIndex}`]: proxy ?? '',
    // What curl reads for the hosts a redirect may reach: the same list, loopback and CIDR included.
    NO_PROXY: settings.noProxy,
    no_proxy: settings.noProxy,
  };
}

/**
 * The longest wait for a proxy to establish a tunnel (its answer to `CONNECT`), as Go's transport bounds a TLS
 * handshake: a proxy that takes the connection and says nothing fails that try in 10 s, not the request timeout's 30.
 */
export const TUNNEL_DEADLINE_MS = 10_000;

/** The code of a try whose tunnel the proxy did not establish within its deadline (nothing reached the origin). */
export const TUNNEL_TIMEOUT_CODE = 'proxy-tunnel-timeout';

/** The options of every connection pool of the dispatcher, proxied or not. */
export interface DispatcherOptions extends Agent.Options {
  /**
   * The longest wait for a proxy to answer a `CONNECT` (a tunnel to an https:// URL). A proxy that accepts the
   * connection and never answers would otherwise hold the request for good: undici does not end a tunnel still
   * being established when the request's signal aborts. @default TUNNEL_DEADLINE_MS
   */
  tunnelTimeoutMs?: number;
}

/**
 * The dispatcher of outgoing requests: each request goes straight to its origin, or through the proxy `proxyFor`
 * names for it.
 */
export function outgoingDispatcher(settings: ProxySettings, agent: DispatcherOptions = {}): Dispatcher {
  const { tunnelTimeoutMs, ...options } = agent;
  if (settings.http === null && settings.https === null) return new Agent(options);
  return new ProxyRouter(settings, options, tunnelTimeoutMs ?? TUNNEL_DEADLINE_MS);
}

/**
 * The client that sends `CONNECT` to a proxy: its answer must come within `deadlineMs`, and a tunnel that did not
 * fails with the code TUNNEL_TIMEOUT_CODE, so that it is told apart from an origin that does not answer.
 */
function tunnelClient(origin: URL, options: object, deadlineMs: number): Pool {
  const pool = new Pool(origin, { ...options, headersTimeout: deadlineMs, bodyTimeout: deadlineMs });
  const connect = pool.connect.bind(pool) as (options: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData>;
  const bounded = (connectOptions: Dispatcher.ConnectOptions): Promise<Dispatcher.ConnectData> =>
    connect(connectOptions).catch((error: unknown) => {
      const code = (error as { code?: unknown } | null)?.code;
      if (code !== 'UND_ERR_HEADERS_TIMEOUT' && code !== 'UND_ERR_BODY_TIMEOUT') throw error;
      throw Object.assign(new Error(`the proxy established no tunnel within ${deadlineMs} ms`, { cause: error }), { code: TUNNEL_TIMEOUT_CODE });
    });
  return Object.assign(pool, { connect: bounded });
}

/** Routes each request by `proxyFor`: the direct agent, or the proxy agent of the proxy named. */
class ProxyRouter extends Dispatcher {
  private readonly direct: Agent;
  private readonly proxied = new Map<string, ProxyAgent>();

  constructor(private readonly settings: ProxySettings, options: Agent.Options, tunnelTimeoutMs: number) {
    super();
    this.direct = new Agent(options);
    for (const uri of new Set([settings.http, settings.https].filter((p): p is string => p !== null))) {
      this.proxied.set(uri, new ProxyAgent({
        ...options,
        uri,
        // false: an http:// URL goes to the proxy as an absolute-URI request, as Go's and curl's clients send it (many
        // proxies take CONNECT to port 443 only); https:// URLs are tunnelled with CONNECT either way.
        proxyTunnel: false,
        // The client that sends CONNECT: its answer must come within the deadline.
        clientFactory: (origin: URL, clientOptions: object) => tunnelClient(origin, clientOptions, tunnelTimeoutMs),
      }));
    }
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const proxy = proxyFor(String(options.origin), this.settings);
    const through = proxy === null ? this.direct : this.proxied.get(proxy);
    return (through ?? this.direct).dispatch(options, handler);
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    const closed = Promise.all([this.direct.close(), ...[...this.proxied.values()].map((p) => p.close())]).then(() => undefined);
    if (callback === undefined) return closed;
    void closed.then(callback, callback);
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(errOrCallback?: Error | null | (() => void), callback?: () => void): Promise<void> | void {
    const err = typeof errOrCallback === 'function' ? null : (errOrCallback ?? null);
    const done = typeof errOrCallback === 'function' ? errOrCallback : callback;
    const destroyed = Promise.all([this.direct.destroy(err), ...[...this.proxied.values()].map((p) => p.destroy(err))]).then(() => undefined);
    if (done === undefined) return destroyed;
    void destroyed.then(done, done);
  }
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
      const decoded = decode(part);
      if (decoded !== part) secrets.push(decoded);
    }
  }
  return secrets;
}

/**
 * Why a request sent through a proxy failed at the proxy itself, when it was refused: the connection refused or its
 * host not found, or an answer to `CONNECT` (or to a proxied http:// request) of 4xx, `407` among them. Such a
 * refusal is final: the next try meets the same proxy. null for anything else (a 5xx of the proxy, a timeout).
 */
export function proxyRefusal(error: unknown): string | null {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; depth += 1, current = current.cause) {
    const code = (current as { code?: unknown }).code;
    if (code === 'ECONNREFUSED') return 'refused the connection (ECONNREFUSED)';
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot be found (${code})`;
    const status = /Proxy response \((\d{3})\) !== 200|Proxy Authentication Required \((407)\)/.exec(current.message);
    const answered = Number(status?.[1] ?? status?.[2]);
    if (answered === 407) return 'answered 407: it wants credentials it was not given, or refused those given';
    if (answered >= 400 && answered < 500) return `answered ${answered} to the tunnel it was asked for`;
  }
  return null;
}
