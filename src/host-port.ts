/**
 * `host:port` as the daemon's `listen`, `LISTEN_ADDRESS` and an HTTP `Host` header write it: a name, an IPv4
 * address, or an IPv6 address in brackets. The one parser of it; it imports nothing, so the container's health check
 * can use it and still start fast.
 */
export interface HostPort {
  /** Lower case, an IPv6 address without its brackets. */
  host: string;
  port: number;
}

const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/;

/** `host:port`, or null when it is not one (no port, a port above 65535, a character no host name has). */
export function parseHostPort(value: string): HostPort | null {
  const parsed = parseHost(value);
  return parsed === null || parsed.port === null ? null : { host: parsed.host, port: parsed.port };
}

/** What keeps `value` from being `host:port`, or null: `port` when only the port is out of range. */
export function hostPortProblem(value: string): 'form' | 'port' | null {
  const match = HOST_PORT.exec(value.trim());
  if (match === null || match[2] === undefined) return 'form';
  return Number(match[2]) > 65535 ? 'port' : null;
}

/** A `Host` header: `host` or `host:port`; null when it is neither. */
export function parseHost(value: string): { host: string; port: number | null } | null {
  const match = HOST_PORT.exec(value.trim());
  if (match === null) return null;
  const port = match[2] === undefined ? null : Number(match[2]);
  if (port !== null && port > 65535) return null;
  return { host: (match[1] ?? '').replace(/^\[(.*)\]$/, '$1').toLowerCase(), port };
}

/** The host as it goes in a URL: an IPv6 address in brackets. */
export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** 0.0.0.0, `::` or empty: every address of the machine. */
export function isWildcardHost(host: string): boolean {
  return host === '' || host === '0.0.0.0' || host === '::';
}

/** localhost (and its sub-names), 127.0.0.0/8 and ::1. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** An IPv4 or IPv6 address rather than a name. */
export function isIpLiteral(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
}
