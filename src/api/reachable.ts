import { lookup } from 'node:dns/promises';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { UnreachableError } from '../errors.js';
import { createRedactor, secretsInUrl } from '../redact.js';
import { NO_PROXY, proxyFor, type ProxySettings } from '../http/proxy.js';

const WHERE = 'check --api-url, API_BASE_URL or api.url';

/**
 * Resolves the host of `url` and opens one connection to it (with a TLS handshake for https), sending no request.
 * Throws UnreachableError, naming the URL and what to check, when the name does not resolve, the connection is
 * refused, or the TLS handshake fails (a plain-HTTP server answering https, say). Anything else, a slow answer
 * included, resolves: the requests' own retries and timeouts deal with it. Skipped when a proxy applies to the URL:
 * the proxy resolves the name, which may not resolve here at all.
 */
export async function checkReachable(url: string, timeoutMs = 5_000, proxy: ProxySettings = NO_PROXY): Promise<void> {
  if (proxyFor(url, proxy) !== null) return;
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
  const shown = createRedactor(secretsInUrl(url))(url);
  const fail = (what: string) => new UnreachableError(`cannot reach the API at ${shown}: ${what}; ${WHERE}`);
  try {
    await lookup(host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ENOTFOUND' || code === 'EAI_NONAME' || code === 'EAI_NODATA') throw fail(`the host name "${host}" does not resolve (${code})`);
    return;
  }
  const failure = await connectOnce(target.protocol === 'https:', host, port, timeoutMs);
  if (failure === null) return;
  if (failure.code === 'ECONNREFUSED') throw fail(`nothing accepts connections on ${host}:${port} (connection refused): check the host and the port`);
  if (failure.tls) {
    const plain = /wrong version number|packet length too long|http request/i.test(failure.message) ? ': the server seems to speak plain HTTP; is the URL http:// rather than https://?' : '';
    throw fail(`the TLS handshake with ${host}:${port} failed (${failure.code ?? failure.message})${plain}`);
  }
}

interface ConnectFailure {
  code: string | undefined;
  message: string;
  /** The connection was made, and the TLS handshake failed. */
  tls: boolean;
}

function connectOnce(secure: boolean, host: string, port: number, timeoutMs: number): Promise<ConnectFailure | null> {
  return new Promise((resolve) => {
    let connected = false;
    const socket: Socket = secure
      ? tlsConnect({ host, port, servername: /^[\d.:]+$/.test(host) ? undefined : host, ALPNProtocols: ['http/1.1'] }, () => done(null))
      : netConnect({ host, port }, () => done(null));
    socket.once('connect', () => (connected = true));
    const timer = setTimeout(() => done(null), timeoutMs);
    socket.once('error', (error: NodeJS.ErrnoException) => done({ code: error.code, message: error.message, tls: secure && connected }));
    function done(result: ConnectFailure | null) {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    }
  });
}
