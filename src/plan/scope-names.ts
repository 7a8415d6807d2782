/**
 * A set's scope and a pool's access lists as a reviewer reads them: the plan's fields hold ids (what the apply sends
 * and a saved plan compares), and each change of a set or a pool also carries the names of those ids and what each
 * wildcard the repo wrote matched today (`ScopeNames`), which every format shows. Pure.
 */
import { selectorText, tagSelection, type LiveState } from '../model.js';
import type { SetTags } from '../declared/types.js';
import { scopeKey } from './names.js';
import { SET_SCOPES } from './policy-sets.js';
import { LISTS as POOL_ACCESS_LISTS } from './pool-access.js';
import type { Change, ScopeNames, WildcardMatch } from './types.js';

/** The fields that hold workspace and project ids, by resource: a set's scope lists, a pool's access lists. */
const SCOPE_FIELDS: Readonly<Record<'policy-set' | 'agent-pool', readonly string[]>> = {
  'policy-set': SET_SCOPES.map(([field]) => field),
  'agent-pool': ['allowed-workspaces', ...POOL_ACCESS_LISTS.map((list) => list.field)],
};

/** Whether `field` of a change of `resource` holds workspace or project ids. */
export function isScopeField(resource: Change['resource'], field: string): boolean {
  return (resource === 'policy-set' || resource === 'agent-pool') && SCOPE_FIELDS[resource].includes(field);
}

/**
 * The workspaces a set's tags select today, by name, as a wildcard's matches are shown: the pattern is the selectors
 * and how they combine (`env:prod, team, !sandbox (match any)`). None without inclusions (a global set's exclusions).
 */
function tagMatches(tags: SetTags | null, live: LiveState): WildcardMatch[] {
  if (tags === null || !tags.selectors.some((s) => !s.exclude)) return [];
  const matched = (live.workspaces ?? []).filter((w) => tagSelection(tags.selectors, tags.match, w.tags ?? []) === 'included').map((w) => w.name).sort();
  return [{ field: 'tags', pattern: `${tags.selectors.map(selectorText).join(', ')} (match ${tags.match})`, matched }];
}

/** Each change of a set or a pool with a scope field, given the names of its ids and the wildcards of the fields shown. */
export function withScopeNames(changes: readonly Change[], live: LiveState, wildcards: ReadonlyMap<string, readonly WildcardMatch[]>): Change[] {
  const known = new Map([...(live.workspaces ?? []), ...(live.projects ?? [])].map((n) => [n.id, n.name]));
  return changes.map((change) => {
    if (change.resource !== 'policy-set' && change.resource !== 'agent-pool') return change;
    const fields = SCOPE_FIELDS[change.resource].filter((field) => change.fields[field] !== undefined);
    const ids = fields.flatMap((field) => [change.fields[field]!.before, change.fields[field]!.after]).flatMap((side) => (Array.isArray(side) ? (side as string[]) : []));
    const names = Object.fromEntries([...new Set(ids)].sort().flatMap((id) => (known.has(id) ? [[id, known.get(id)!]] : [])));
    const tagged = change.resource === 'policy-set' && change.fields['tags'] !== undefined ? tagMatches(change.declared?.tags ?? null, live) : [];
    const shown = [...(wildcards.get(scopeKey(change.resource, change.name)) ?? []).filter((w) => fields.includes(w.field)), ...tagged];
    if (Object.keys(names).length === 0 && shown.length === 0) return change;
    const scope: ScopeNames = { names, wildcards: shown.map((w) => ({ ...w, matched: [...w.matched] })) };
    return { ...change, scope };
  });
}
