/**
 * The container's HEALTHCHECK: `node bundle/healthcheck.mjs` asks the daemon's /healthz on the address it listens on
 * (`LISTEN_ADDRESS`, as the daemon reads it; a wildcard host is asked on loopback), and exits 0 when it answers 200,
 * else 1. It imports only the host:port parser, which imports nothing, so it starts fast.
 */
import { isWildcardHost, parseHostPort, urlHost } from './host-port.js';

const DEFAULT_LISTEN = '0.0.0.0:9090';

/** The /healthz URL of a daemon listening on `listen`; null when `listen` is not host:port (the daemon refuses it too). */
export function healthUrl(listen: string): string | null {
  const parsed = parseHostPort(listen);
  if (parsed === null) return null;
  const probe = parsed.host === '::' ? '::1' : isWildcardHost(parsed.host) ? '127.0.0.1' : parsed.host;
  return `http://${urlHost(probe)}:${parsed.port}/healthz`;
}

const url = healthUrl(process.env['LISTEN_ADDRESS']?.trim() || DEFAULT_LISTEN);
if (url === null) process.exit(1);
fetch(url, { signal: AbortSignal.timeout(2_500) }).then(
  (response) => process.exit(response.ok ? 0 : 1),
  () => process.exit(1),
);
