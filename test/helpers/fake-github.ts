/** A local stand-in for the part of GitHub's REST API that pull-request comments use: list (paged), create, update. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeComment {
  id: number;
  body: string;
  html_url: string;
  user: { login: string; type: string };
}

/** Who the workflow's token comments as; GET /user refuses that token, as GitHub does for an installation token. */
export const ACTIONS_BOT = 'github-actions[bot]';

export interface FakeRequest {
  method: string;
  path: string;
  authorization: string | undefined;
}

export interface FakeGitHub {
  url: string;
  /** Comments by issue number. */
  comments: Map<number, FakeComment[]>;
  requests: FakeRequest[];
  /** A comment by `login` (default: the workflow's bot, as an earlier run of the action posts it). */
  addComment(issue: number, body: string, login?: string): FakeComment;
  /** Answers the next requests with these statuses and headers instead, one each (a busy GitHub). */
  failures: Array<{ status: number; headers?: Record<string, string> }>;
  close(): Promise<void>;
}

export async function startFakeGitHub(repository: string, token: string): Promise<FakeGitHub> {
  const comments = new Map<number, FakeComment[]>();
  const requests: FakeRequest[] = [];
  const failures: Array<{ status: number; headers?: Record<string, string> }> = [];
  let nextId = 1000;
  const addComment = (issue: number, body: string, login = ACTIONS_BOT): FakeComment => {
    const user = { login, type: login.endsWith('[bot]') ? 'Bot' : 'User' };
    const comment = { id: (nextId += 1), body, html_url: `https://github.example/${repository}/pull/${issue}#issuecomment-${nextId}`, user };
    comments.set(issue, [...(comments.get(issue) ?? []), comment]);
    return comment;
  };
  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://fake');
      requests.push({ method: request.method ?? '', path: `${url.pathname}${url.search}`, authorization: request.headers.authorization });
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
      };
      const failure = failures.shift();
      if (failure !== undefined) return send(failure.status, { message: 'busy' }, failure.headers);
      if (request.headers.authorization !== `Bearer ${token}`) return send(401, { message: 'Bad credentials' });
      const list = new RegExp(`^/repos/${repository}/issues/(\\d+)/comments$`).exec(url.pathname);
      const one = new RegExp(`^/repos/${repository}/issues/comments/(\\d+)$`).exec(url.pathname);
      if (url.pathname === '/user' && request.method === 'GET') return send(403, { message: 'Resource not accessible by integration' });
      if (list !== null && request.method === 'GET') {
        const all = comments.get(Number(list[1])) ?? [];
        const size = Number(url.searchParams.get('per_page') ?? 30);
        const page = Number(url.searchParams.get('page') ?? 1);
        const last = Math.max(1, Math.ceil(all.length / size));
        const next = new URL(url);
        next.searchParams.set('page', String(page + 1));
        const link: Record<string, string> = page < last ? { link: `<${origin(server)}${next.pathname}${next.search}>; rel="next"` } : {};
        return send(200, all.slice((page - 1) * size, page * size), link);
      }
      if (list !== null && request.method === 'POST') return send(201, addComment(Number(list[1]), (await json(request)).body));
      if (one !== null && request.method === 'PATCH') {
        const comment = [...comments.values()].flat().find((c) => c.id === Number(one[1]));
        if (comment === undefined) return send(404, { message: 'Not Found' });
        comment.body = (await json(request)).body;
        return send(200, comment);
      }
      return send(404, { message: 'Not Found' });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: origin(server),
    comments,
    requests,
    addComment,
    failures,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function origin(server: Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function json(request: IncomingMessage): Promise<{ body: string }> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return JSON.parse(text) as { body: string };
}
