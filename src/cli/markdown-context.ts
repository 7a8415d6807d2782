import type { MarkdownContext } from '../output/markdown.js';
import { inGitHubActions } from './error-lines.js';

/** The time of the plan, and under GitHub Actions the link to the workflow run (`GITHUB_SERVER_URL/REPOSITORY/actions/runs/RUN_ID`). */
export function markdownContext(env: NodeJS.ProcessEnv, now: Date = new Date()): MarkdownContext {
  const context: MarkdownContext = { time: now.toISOString().replace(/\.\d{3}Z$/, 'Z') };
  const server = env['GITHUB_SERVER_URL'] || 'https://github.com';
  const repository = env['GITHUB_REPOSITORY'];
  const runId = env['GITHUB_RUN_ID'];
  if (inGitHubActions(env) && repository && runId) {
    context.runUrl = `${server.replace(/\/+$/, '')}/${repository}/actions/runs/${runId}${env['GITHUB_RUN_ATTEMPT'] ? `/attempts/${env['GITHUB_RUN_ATTEMPT']}` : ''}`;
  }
  return context;
}
