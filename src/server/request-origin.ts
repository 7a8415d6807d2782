import type { IncomingHttpHeaders } from 'node:http';
import { isIpLiteral, isLoopbackHost, isWildcardHost, parseHost, parseHostPort } from '../host-port.js';

/**
 * Whether a `Host` header names this daemon, so that a page whose own name was made to resolve to the daemon's address
 * (DNS rebinding) cannot read or drive it. Allowed: any IP address (a browser that sends one is on the daemon's own
 * origin, never on another site's), `localhost`, the host `listen` names, and `allowed-hosts` (`*.example.com`
 * allows every name under example.com). A request without `Host` (HTTP/1.0, no browser) is allowed.
 */
export function hostRule(listen: string, allowedHosts: readonly string[]): (host: string | undefined) => boolean {
  const names = new Set(allowedHosts.map((h) => h.toLowerCase()));
  const listenHost = parseHostPort(listen)?.host;
  if (listenHost !== undefined && !isWildcardHost(listenHost)) names.add(listenHost);
  return (header) => {
    if (header === undefined) return true;
    const host = parseHost(header)?.host;
    if (host === undefined) return false;
    if (isIpLiteral(host) || isLoopbackHost(host) || names.has(host)) return true;
    return [...names].some((name) => name.startsWith('*.') && host.endsWith(name.slice(1)));
  };
}

/**
 * Why a request that changes something looks sent by a page of another site, or null. Browsers say where a request
 * comes from in `Sec-Fetch-Site` (refused unless `same-origin` or `none`: `same-site` is another port or name of the
 * same site, e.g. any other server on localhost) and in `Origin` (refused unless it is the daemon's own, the `Host`
 * the request was sent to). Clients that are not browsers send neither, and are let through.
 */
export function crossSiteProblem(headers: IncomingHttpHeaders): string | null {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `Sec-Fetch-Site: ${site}`;
  const origin = headers.origin;
  if (origin === undefined) return null;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return `Origin: ${origin}`;
  }
  return host !== '' && host === (headers.host ?? '').toLowerCase() ? null : `Origin: ${origin}`;
}
