import type { SourceConfig } from '../config/types.js';

/**
 * Reduces a git URL to `host/owner/repo` for comparison: drops the scheme, credentials, a `.git` suffix and
 * trailing slashes, turns scp-like `git@host:owner/repo` into `host/owner/repo`, lower-cases. Local paths stay paths.
 */
export function normalizeRepositoryUrl(url: string): string {
  let s = url.trim();
  const scp = /^[^/@\s]+@([^:/\s]+):(.+)$/.exec(s);
  if (scp !== null) s = `${scp[1]}/${scp[2]}`;
  s = s.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/^[^/@]+@/, '');
  s = s.replace(/\/+$/, '').replace(/\.git$/i, '').replace(/\/+$/, '');
  return s.toLowerCase();
}

/** Repository URLs a GitHub or GitLab push payload names; empty when the body is not such JSON. */
export function payloadRepositoryUrls(rawBody: Buffer): string[] {
  let payload: unknown;
  try {
    payload = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return [];
  }
  if (typeof payload !== 'object' || payload === null) return [];
  const { repository, project } = payload as { repository?: Record<string, unknown>; project?: Record<string, unknown> };
  const candidates = [
    repository?.clone_url, repository?.ssh_url, repository?.git_url, repository?.html_url, repository?.url,
    repository?.git_http_url, repository?.git_ssh_url, repository?.homepage,
    project?.git_http_url, project?.git_ssh_url, project?.web_url, project?.http_url, project?.ssh_url,
  ];
  return candidates.filter((c): c is string => typeof c === 'string' && c !== '');
}

/**
 * The sources a webhook should trigger: the git sources whose URL matches the payload's repository; when none
 * matches (or the payload names none), every git source; with no git source at all, every source.
 */
export function sourcesForWebhook(sources: readonly SourceConfig[], rawBody: Buffer): SourceConfig[] {
  const gitSources = sources.filter((s) => s.git !== null);
  if (gitSources.length === 0) return [...sources];
  const named = new Set(payloadRepositoryUrls(rawBody).map(normalizeRepositoryUrl));
  const matching = gitSources.filter((s) => s.git !== null && named.has(normalizeRepositoryUrl(s.git.url)));
  return matching.length > 0 ? matching : gitSources;
}
