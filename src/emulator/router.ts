/** Route table matching of method and path patterns such as `/policies/:id`. */
import type { IncomingMessage } from 'node:http';
import type { BlobStore } from './blobs.js';
import type { Reply } from './http.js';
import type { Store } from './store.js';
import type { Behaviour } from './types.js';
import { decode } from '../redact.js';

export interface Context {
  req: IncomingMessage;
  method: string;
  /** Path after the route table's prefix, without query. */
  path: string;
  query: URLSearchParams;
  params: Record<string, string>;
  store: Store;
  blobs: BlobStore;
  /** `http://host:port`, for absolute URLs. */
  origin: string;
  /** The current switches; the control endpoint changes them in place. */
  behaviour: Behaviour;
  now: () => number;
  /** Set by a duplicate-items fault: a list page after the first starts with this many resources of the page before. */
  repeatItems?: number;
}

export type Handler = (ctx: Context) => Promise<Reply> | Reply;

export interface Route {
  method: string;
  pattern: string;
  handler: Handler;
}

interface CompiledRoute extends Route {
  regex: RegExp;
  names: string[];
}

export type Match = { handler: Handler; params: Record<string, string> } | 'method-not-allowed' | null;

export type Router = (method: string, path: string) => Match;

export function createRouter(routes: Route[]): Router {
  const compiled = routes.map(compile);
  return (method, path) => {
    let pathMatched = false;
    for (const route of compiled) {
      const found = route.regex.exec(path);
      if (found === null) continue;
      pathMatched = true;
      if (route.method !== method) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => (params[name] = decode(found[i + 1] ?? '')));
      return { handler: route.handler, params };
    }
    return pathMatched ? 'method-not-allowed' : null;
  };
}

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.pattern.replace(/:([a-z_]+)/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { ...route, regex: new RegExp(`^${source}/?$`), names };
}
