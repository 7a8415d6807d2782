/**
 * A real git server over HTTP on a loopback port: `git http-backend` run as CGI for each request, serving the
 * repositories under `root`. With `credentials` (`user:password`) it asks for Basic authentication (401) as hosted git
 * does; with `redirectTo` (an origin) it answers every request with a 307 there instead. Every request's path and
 * Authorization header are recorded.
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';

export interface GitHttpServer {
  origin: string;
  seen: Array<{ url: string; authorization: string | undefined }>;
}

export async function gitHttpServer(t: TestContext, options: { root?: string; credentials?: string; redirectTo?: string }): Promise<GitHttpServer> {
  const seen: GitHttpServer['seen'] = [];
  const server = createServer((request, response) => {
    seen.push({ url: request.url ?? '', authorization: request.headers.authorization });
    if (options.redirectTo !== undefined) {
      response.writeHead(307, { location: `${options.redirectTo}${request.url ?? '/'}` }).end();
      return;
    }
    const expected = options.credentials === undefined ? undefined : `Basic ${Buffer.from(options.credentials).toString('base64')}`;
    if (expected !== undefined && request.headers.authorization !== expected) {
      response.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
      return;
    }
    backend(request, response, options.root ?? '/nonexistent');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** One request through `git http-backend` (CGI): its headers block, then its body. */
function backend(request: IncomingMessage, response: ServerResponse, root: string): void {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const cgi = spawn('git', ['http-backend'], {
    env: {
      ...process.env,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      REQUEST_METHOD: request.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: request.headers['content-type'] ?? '',
      REMOTE_ADDR: '127.0.0.1',
      ...(request.headers['git-protocol'] === undefined ? {} : { GIT_PROTOCOL: String(request.headers['git-protocol']) }),
      ...(request.headers['content-encoding'] === undefined ? {} : { HTTP_CONTENT_ENCODING: String(request.headers['content-encoding']) }),
    },
  });
  request.pipe(cgi.stdin);
  const chunks: Buffer[] = [];
  cgi.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  cgi.on('close', () => {
    const output = Buffer.concat(chunks);
    const end = output.indexOf('\r\n\r\n');
    const head = output.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    let status = 200;
    for (const line of head) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'status') status = Number.parseInt(value, 10);
      else headers[name] = value;
    }
    response.writeHead(status, headers).end(output.subarray(end + 4));
  });
}
