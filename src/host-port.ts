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

/**
 * Loopback, the one definition: localhost (and its sub-names), 127.0.0.0/8 and ::1, and 127.0.0.0/8 in each IPv6 form
 * that carries an IPv4 address (`embeddedIpv4`: `::ffff:127.0.0.1`, `::127.0.0.1`, NAT64, 6to4). The Host check, the
 * endpoints' secrets, the proxy's bypass and a standby's forward all ask it.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(bare)) return true;
  const groups = ipv6Groups(bare);
  if (groups === null) return false;
  if (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1) return true;
  return embeddedIpv4(bare)?.startsWith('127.') ?? false;
}

/**
 * The IPv4 address an IPv6 address carries, in its dotted form, or null: IPv4-mapped (`::ffff:a.b.c.d`),
 * IPv4-compatible (`::a.b.c.d`, deprecated but still routed by some stacks), NAT64 (`64:ff9b::/96`, RFC 6052) and 6to4
 * (`2002:AABB:CCDD::/16`, RFC 3056). What an address check refuses in IPv4 it must refuse in these forms too.
 */
export function embeddedIpv4(ipv6: string): string | null {
  const g = ipv6Groups(ipv6.replace(/^\[(.*)\]$/, '$1'));
  if (g === null) return null;
  const dotted = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return dotted(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return dotted(g[6]!, g[7]!);
  if (g[0] === 0x2002) return dotted(g[1]!, g[2]!);
  // IPv4-compatible: the first 96 bits zero; :: and ::1 are their own addresses, not 0.0.0.0 and 0.0.0.1.
  if (zeros(0, 6) && (g[6] !== 0 || g[7]! > 1)) return dotted(g[6]!, g[7]!);
  return null;
}

/** An IPv6 address's eight 16-bit groups (`::` expanded, a trailing dotted IPv4 read as two), or null when it is not one. */
function ipv6Groups(text: string): number[] | null {
  if (!text.includes(':') || !/^[0-9a-f:.]+$/i.test(text)) return null;
  let body = text;
  const tail: number[] = [];
  const dotted = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted !== null) {
    const bytes = dotted.slice(2, 6).map(Number);
    if (bytes.some((b) => b > 255)) return null;
    tail.push((bytes[0]! << 8) | bytes[1]!, (bytes[2]! << 8) | bytes[3]!);
    body = dotted[1]!.endsWith('::') ? dotted[1]! : dotted[1]!.slice(0, -1);
  }
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const part = (s: string) => (s === '' ? [] : s.split(':'));
  const head = part(halves[0]!);
  const rest = halves.length === 2 ? part(halves[1]!) : [];
  if ([...head, ...rest].some((h) => !/^[0-9a-f]{1,4}$/i.test(h))) return null;
  const given = head.length + rest.length + tail.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return null;
  const fill = new Array<number>(8 - given).fill(0);
  return [...head.map((h) => parseInt(h, 16)), ...fill, ...rest.map((h) => parseInt(h, 16)), ...tail];
}

/** An IPv4 or IPv6 address rather than a name. */
export function isIpLiteral(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
}
