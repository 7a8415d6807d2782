#!/usr/bin/env node
import { createRequire as __ppsCreateRequire } from 'node:module';
const require = __ppsCreateRequire(import.meta.url);

// src/ci/github-comment.ts
import { readFile } from "node:fs/promises";

// src/ci/sticky-comment.ts
var ACTIONS_BOT = "github-actions[bot]";
var MAX_BODY = 65e3;
var MARKER = /^<!-- policy-pool-sync plan source=[^\n]*? -->/;
function commentMarker(body, source) {
  return MARKER.exec(body)?.[0] ?? `<!-- policy-pool-sync plan source=${source} -->`;
}
async function upsertStickyComment(options) {
  const marker = commentMarker(options.body, options.source);
  const body = fitBody(options.body.startsWith(marker) ? options.body : `${marker}
${options.body}`);
  const repo = `${options.apiUrl.replace(/\/+$/, "")}/repos/${options.repository}`;
  const author = await tokenUser(options);
  const existing = await findComment(options, `${repo}/issues/${options.issue}/comments?per_page=100`, marker, author);
  const comment = existing === null ? await call(options, "POST", `${repo}/issues/${options.issue}/comments`, { body }) : await call(options, "PATCH", `${repo}/issues/comments/${existing.id}`, { body });
  return { action: existing === null ? "created" : "updated", id: comment.id, url: comment.html_url };
}
async function tokenUser(options) {
  const response = await options.fetch(`${options.apiUrl.replace(/\/+$/, "")}/user`, {
    headers: { accept: "application/vnd.github+json", authorization: `Bearer ${options.token}`, "x-github-api-version": "2022-11-28", "user-agent": "policy-pool-sync" }
  });
  if (!response.ok) {
    await response.body?.cancel();
    return ACTIONS_BOT;
  }
  const login = (await response.json()).login;
  return typeof login === "string" ? login : ACTIONS_BOT;
}
async function findComment(options, firstPage, marker, author) {
  let url = firstPage;
  while (url !== null) {
    const response = await send(options, "GET", url);
    const comments = await response.json();
    const found = comments.find((c) => c.body?.startsWith(marker) === true && c.user?.login === author);
    if (found !== void 0) return found;
    url = nextPage(response.headers.get("link"));
  }
  return null;
}
async function call(options, method, url, payload) {
  return await (await send(options, method, url, payload)).json();
}
async function send(options, method, url, payload) {
  const response = await options.fetch(url, {
    method,
    headers: {
      accept: "application/vnd.github+json",
      authorization: `Bearer ${options.token}`,
      "x-github-api-version": "2022-11-28",
      "user-agent": "policy-pool-sync",
      ...payload === void 0 ? {} : { "content-type": "application/json" }
    },
    body: payload === void 0 ? void 0 : JSON.stringify(payload)
  });
  if (response.ok) return response;
  const path = new URL(url).pathname;
  const hint = response.status === 403 || response.status === 404 ? ': the token cannot write pull-request comments here; give the job "permissions: pull-requests: write"' : "";
  throw new Error(`GitHub answered ${response.status} to ${method} ${path}${hint}`);
}
function nextPage(link) {
  for (const part of link?.split(",") ?? []) {
    const match = /<([^>]+)>\s*;\s*rel="next"/.exec(part);
    if (match !== null) return match[1] ?? null;
  }
  return null;
}
function fitBody(body) {
  if (body.length <= MAX_BODY) return body;
  return `${body.slice(0, MAX_BODY)}

\u2026 the plan was cut to fit a comment; the job's step summary holds all of it.
`;
}

// src/ci/github-comment.ts
function required(name) {
  const value = process.env[name];
  if (value === void 0 || value === "") throw new Error(`${name} is not set`);
  return value;
}
try {
  const result = await upsertStickyComment({
    apiUrl: process.env["GITHUB_API_URL"] || "https://api.github.com",
    repository: required("GITHUB_REPOSITORY"),
    issue: Number(required("PR_NUMBER")),
    token: required("GITHUB_TOKEN"),
    body: await readFile(required("PLAN_FILE"), "utf8"),
    source: process.env["SOURCE_NAME"] || "default",
    fetch
  });
  process.stdout.write(`plan comment ${result.action}: ${result.url}
`);
} catch (error) {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}
`);
  process.exitCode = 1;
}
