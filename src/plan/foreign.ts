import type { DeclaredPolicy } from '../declared/types.js';
import type { ForeignPolicy } from '../model.js';

/**
 * Live policies of a kind this tool does not know (the vendor's beta `tfpolicy`) are never updated, replaced or deleted:
 * the plan names them once among its warnings. A declared policy of the same name cannot be created beside one: an
 * error names both, so nothing is written.
 */
export function planForeign(declared: readonly DeclaredPolicy[], foreign: readonly ForeignPolicy[]): { warnings: string[]; errors: string[] } {
  if (foreign.length === 0) return { warnings: [], errors: [] };
  const names = foreign.map((p) => `${p.name} (${p.kind})`).sort();
  const warnings = [`policies of a kind this tool does not manage, left as they are: ${names.join(', ')}`];
  const byName = new Map(foreign.map((p) => [p.name, p]));
  const errors = declared.flatMap((policy) => {
    const live = byName.get(policy.name);
    if (live === undefined) return [];
    return [`policy "${policy.name}" (${policy.file}) exists as a ${live.kind} policy (${live.id}), a kind this tool does not manage; rename the declared policy or remove the live one by hand`];
  });
  return { warnings, errors };
}
