#!/usr/bin/env node
/**
 * The GitHub Action's comment step: posts the Markdown plan in `PLAN_FILE` on the pull request `PR_NUMBER`, or updates
 * the comment an earlier run of the same source posted. Reads `GITHUB_TOKEN`, `GITHUB_API_URL` and `GITHUB_REPOSITORY`.
 */
import { readFile } from 'node:fs/promises';
import { OutgoingHttp } from '../http/outgoing.js';
import { proxySettings } from '../http/proxy.js';
import { upsertStickyComment } from './sticky-comment.js';
import { errorMessage } from '../errors.js';

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
}

// Through the proxy of HTTP_PROXY, HTTPS_PROXY and NO_PROXY, as every request of the tool.
let http: OutgoingHttp | null = null;
try {
  http = new OutgoingHttp({ proxy: proxySettings(process.env) });
  const result = await upsertStickyComment({
    apiUrl: process.env['GITHUB_API_URL'] || 'https://api.github.com',
    repository: required('GITHUB_REPOSITORY'),
    issue: Number(required('PR_NUMBER')),
    token: required('GITHUB_TOKEN'),
    body: await readFile(required('PLAN_FILE'), 'utf8'),
    source: process.env['SOURCE_NAME'] || 'default',
    http,
  });
  process.stdout.write(`plan comment ${result.action}: ${result.url}\n`);
} catch (error) {
  process.stderr.write(`error: ${errorMessage(error)}\n`);
  process.exitCode = 1;
} finally {
  await http?.close();
}
