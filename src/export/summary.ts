import type { ExportResult } from './export.js';
import { count } from '../plural.js';

/** What an export wrote and what it could not, for the terminal. */
export function exportSummary(result: ExportResult, organization: string, dir: string): string {
  const lines = [`Exported ${organization} to ${dir}: ${count(result.policies, 'policy', 'policies')}, ${count(result.pools, 'agent pool')} (${count(result.files.length, 'file')}).`];
  if (result.pools > 1) {
    lines.push(`The organization has ${result.pools} agent pools: plan and apply with --max-agent-pools ${result.pools} (or max-agent-pools: ${result.pools} on the source in a config; the default is 1).`);
  }
  if (result.notExported.length > 0) {
    lines.push(`Not exported (${result.notExported.length}):`);
    for (const item of result.notExported) lines.push(`  ${item.resource} "${item.name}": ${item.reason}`);
  }
  lines.push('Review the files, commit them, then run --dry-run against the organization: it should show no changes but adoptions.');
  return `${lines.join('\n')}\n`;
}
