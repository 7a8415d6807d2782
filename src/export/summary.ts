import type { ExportResult } from './export.js';
import { count } from '../plural.js';

/** What an export wrote and what it could not, for the terminal; and what the operator must do before the first plan. */
export function exportSummary(result: ExportResult, organization: string, dir: string): string {
  const sets = result.policySets > 0 ? `, ${count(result.policySets, 'policy set')}` : '';
  const lines = [`Exported ${organization} to ${dir}: ${count(result.policies, 'policy', 'policies')}, ${count(result.pools, 'agent pool')}${sets} (${count(result.files.length, 'file')}).`];
  if (result.pools > 1) {
    lines.push(`The organization has ${result.pools} agent pools: plan and apply with --max-agent-pools ${result.pools} (or max-agent-pools: ${result.pools} on the source in a config; the default is 1).`);
  }
  if (result.versionedSets.length > 0) {
    lines.push(`Versioned policy sets (${result.versionedSets.length}): their files cannot be read back from the service. Only their settings were written; vendor each folder (its sentinel.hcl or policies.hcl and the files it names) from where it came into policy-sets/<name>/, beside its policy-set.yaml. Until then the set is not declared, and kept:`);
    for (const name of result.versionedSets) lines.push(`  policy set "${name}": policy-sets/${name}/`);
  }
  if (result.sensitive.length > 0) {
    const allow = [...new Set(result.sensitive.map((s) => s.env))];
    lines.push(`Sensitive parameters (${result.sensitive.length}): their values cannot be read back, so each is written as {env: NAME}. Allow the names and set each variable to its value before a plan: ${allow.map((env) => `--parameter-env ${env}`).join(' ')} (or parameters: {env: [...]} in the config).`);
    for (const item of result.sensitive) lines.push(`  policy set "${item.set}" parameter "${item.key}": ${item.env}`);
  }
  if (result.notExported.length > 0) {
    lines.push(`Not exported (${result.notExported.length}):`);
    for (const item of result.notExported) lines.push(`  ${item.resource} "${item.name}": ${item.reason}`);
  }
  lines.push('Review the files, commit them, then run --dry-run against the organization: it should show no changes but adoptions.');
  return `${lines.join('\n')}\n`;
}
