/**
 * The container's HEALTHCHECK: `node bundle/healthcheck.mjs` asks the daemon's /healthz on the address it listens on
 * (`LISTEN_ADDRESS`, as the daemon reads it; a wildcard host is asked on loopback), and exits 0 when it answers 200,
 * else 1. It imports nothing, so it starts fast.
 */
const DEFAULT_LISTEN = '0.0.0.0:9090';

export function healthUrl(listen: string): string {
  const separator = listen.lastIndexOf(':');
  const host = listen.slice(0, separator);
  const port = listen.slice(separator + 1);
  const probe = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host;
  return `http://${probe}:${port}/healthz`;
}

const listen = process.env['LISTEN_ADDRESS']?.trim() || DEFAULT_LISTEN;
fetch(healthUrl(listen), { signal: AbortSignal.timeout(2_500) }).then(
  (response) => process.exit(response.ok ? 0 : 1),
  () => process.exit(1),
);
