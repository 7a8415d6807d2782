import type { Change, SourcePlan } from '../plan/types.js';
import { sourceErrors, summarize } from './describe.js';

/** Key order is fixed by construction: the JSON plan is byte-for-byte deterministic. */
function jsonChange(change: Change): unknown {
  const fields: Record<string, { before: unknown; after: unknown }> = {};
  for (const [name, field] of Object.entries(change.fields)) {
    fields[name] = { before: field.before ?? null, after: field.after ?? null };
  }
  return {
    resource: change.resource,
    name: change.name,
    id: change.id,
    action: change.action,
    reason: change.reason,
    fields,
  };
}

/** The JSON plan (`--output json`, README: Plan formats), `format_version` "1"; code fields carry the full texts before and after. */
export function renderJson(plans: readonly SourcePlan[]): string {
  const summary = summarize(plans);
  const document = {
    format_version: '1',
    sources: plans.map((source) => ({
      name: source.name,
      organization: source.organization,
      revision: source.revision,
      changes: (source.plan?.changes ?? []).map(jsonChange),
      warnings: [...(source.plan?.warnings ?? [])],
      errors: [...sourceErrors(source)],
    })),
    summary: { create: summary.create, update: summary.update, replace: summary.replace, delete: summary.delete },
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
