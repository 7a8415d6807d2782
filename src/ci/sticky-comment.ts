/**
 * One pull-request comment per source, updated in place: the plan's first line is a hidden marker naming its source,
 * and a later plan for the same source replaces the comment that starts with the same marker, and that the token's own
 * user wrote, instead of adding one. A person's comment that quotes the marker is never edited.
 */

import type { OutgoingAnswer, OutgoingHttp, OutgoingRequest } from '../http/outgoing.js';
import type { RetryPolicy } from '../http/retry.js';

/** Who a workflow's token (an installation token, which may not read /user) comments as. */
const ACTIONS_BOT = 'github-actions[bot]';

/** GitHub's limit on a comment body is 65,536 characters; leave room for the note that says the plan was cut. */
const MAX_BODY = 65_000;
const MARKER = /^<!-- policy-pool-sync plan source=[^\n]*? -->/;

export interface StickyCommentOptions {
  /** The REST API root, `GITHUB_API_URL` (e.g. https://api.github.com). */
  apiUrl: string;
  /** `owner/name`, `GITHUB_REPOSITORY`. */
  repository: string;
  /** The pull request's number. */
  issue: number;
  /** The workflow's token; sent only to `apiUrl`. */
  token: string;
  /** The Markdown plan. */
  body: string;
  /** Names the marker when the plan carries none. */
  source: string;
  /** How the requests go out: the proxy of the environment, retries (http/outgoing.ts). */
  http: OutgoingHttp;
}

/** GitHub's API answers 429, or a 5xx while it is busy: a few tries over about half a minute, each within 30 s. */
const RETRIES: RetryPolicy & { timeoutMs: number } = { attempts: 5, initialMs: 1_000, maxMs: 15_000, jitter: 'half', timeoutMs: 30_000 };

export interface StickyCommentResult {
  action: 'created' | 'updated';
  id: number;
  url: string;
}

interface IssueComment {
  id: number;
  body?: string;
  html_url: string;
  user?: { login?: string } | null;
}

/** The hidden first line of a plan's comment; the plan's own when it has one. */
export function commentMarker(body: string, source: string): string {
  return MARKER.exec(body)?.[0] ?? `<!-- policy-pool-sync plan source=${source} -->`;
}

/** Creates the source's plan comment on the pull request, or updates the one that is already there. */
export async function upsertStickyComment(options: StickyCommentOptions): Promise<StickyCommentResult> {
  // A blank plan (a run that printed nothing) never replaces the comment: the last plan stays until one says why it went.
  if (options.body.replace(MARKER, '').trim() === '') throw new Error('the plan is empty: the pull request\'s comment is left as it was');
  const marker = commentMarker(options.body, options.source);
  const body = fitBody(options.body.startsWith(marker) ? options.body : `${marker}\n${options.body}`);
  const repo = `${options.apiUrl.replace(/\/+$/, '')}/repos/${options.repository}`;
  const author = await tokenUser(options);
  const existing = await findComment(options, `${repo}/issues/${options.issue}/comments?per_page=100`, marker, author);
  const comment = existing === null
    ? await call<IssueComment>(options, 'POST', `${repo}/issues/${options.issue}/comments`, { body })
    : await call<IssueComment>(options, 'PATCH', `${repo}/issues/comments/${existing.id}`, { body });
  return { action: existing === null ? 'created' : 'updated', id: comment.id, url: comment.html_url };
}

/** The login the token comments as: its user's, or, for a workflow's installation token, which cannot read it, the Actions bot. */
async function tokenUser(options: StickyCommentOptions): Promise<string> {
  const response = await options.http.send({ method: 'GET', url: `${options.apiUrl.replace(/\/+$/, '')}/user`, headers: headers(options) }, RETRIES);
  if (response.status < 200 || response.status >= 300) return ACTIONS_BOT;
  const login = (parsed(response) as { login?: unknown } | null)?.login;
  return typeof login === 'string' ? login : ACTIONS_BOT;
}

async function findComment(options: StickyCommentOptions, firstPage: string, marker: string, author: string): Promise<IssueComment | null> {
  let url: string | null = firstPage;
  while (url !== null) {
    const response = await send(options, 'GET', url);
    const comments = parsed(response);
    const found = Array.isArray(comments) ? (comments as IssueComment[]).find((c) => c.body?.startsWith(marker) === true && c.user?.login === author) : undefined;
    if (found !== undefined) return found;
    url = nextPage(response.headers.link ?? null);
  }
  return null;
}

async function call<T>(options: StickyCommentOptions, method: 'POST' | 'PATCH', url: string, payload: unknown): Promise<T> {
  return parsed(await send(options, method, url, payload)) as T;
}

/** A create is tried again only after a 429: a 5xx may have made the comment already. */
async function send(options: StickyCommentOptions, method: OutgoingRequest['method'], url: string, payload?: unknown): Promise<OutgoingAnswer> {
  const request: OutgoingRequest = {
    method,
    url,
    headers: { ...headers(options), ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    ...(method === 'POST' ? { retry: 'rate-limited-only' as const } : {}),
  };
  const response = await options.http.send(request, RETRIES);
  if (response.status >= 200 && response.status < 300) return response;
  const path = new URL(url).pathname;
  const hint = response.status === 403 || response.status === 404
    ? ': the token cannot write pull-request comments here; give the job "permissions: pull-requests: write"'
    : '';
  throw new Error(`GitHub answered ${response.status} to ${method} ${path}${hint}`);
}

function headers(options: StickyCommentOptions): Record<string, string> {
  return { accept: 'application/vnd.github+json', authorization: `Bearer ${options.token}`, 'x-github-api-version': '2022-11-28', 'user-agent': 'policy-pool-sync' };
}

function parsed(response: OutgoingAnswer): unknown {
  try {
    return JSON.parse(response.text) as unknown;
  } catch {
    return null;
  }
}

/** The `rel="next"` URL of a GitHub `Link` header. */
function nextPage(link: string | null): string | null {
  for (const part of link?.split(',') ?? []) {
    const match = /<([^>]+)>\s*;\s*rel="next"/.exec(part);
    if (match !== null) return match[1] ?? null;
  }
  return null;
}

function fitBody(body: string): string {
  if (body.length <= MAX_BODY) return body;
  return `${body.slice(0, MAX_BODY)}\n\n… the plan was cut to fit a comment; the job's step summary holds all of it.\n`;
}
