/**
 * Names where the service wants ids: a policy's `policy-sets` by set name, resolved against the live sets and the sets
 * this source declares, and a set's workspaces and projects by name, with `*` as prefix, suffix or both (as the vendor's
 * `tfe_workspace_ids` takes them), and an agent pool's access lists the same way, against the lists the live read made. Pure: the declared state comes back with every name it can resolve turned into its id; a name
 * of a set the plan creates stays a name, which the apply resolves once the set exists; a name that matches nothing is
 * an error naming it, its file and line, and the closest match.
 */
import type { DeclaredPolicySet, DeclaredPool, DeclaredState, EntryLines, SetScope } from '../declared/types.js';
import type { LiveState } from '../model.js';
import { closest } from '../suggest.js';

export interface Resolved {
  declared: DeclaredState;
  errors: string[];
  warnings: string[];
}

/** A `polset-` id as the service makes them; anything else in `policy-sets` is a set's name. */
export function isSetId(entry: string): boolean {
  return /^polset-[A-Za-z0-9_-]+$/.test(entry);
}

export function resolveNames(declared: DeclaredState, live: LiveState): Resolved {
  const errors: string[] = [];
  const liveIds = new Map((live.policySets ?? []).map((set) => [set.name, set.id]));
  const declaredSets = new Map((declared.policySets ?? []).map((set) => [set.name, set]));
  const known = [...new Set([...liveIds.keys(), ...declaredSets.keys()])].sort();
  const policies = declared.policies.map((policy) => {
    if (policy.policySets === null || policy.policySets.every(isSetId)) return policy;
    const resolved = policy.policySets.map((entry, index) => {
      if (isSetId(entry)) return entry;
      const where = at(policy.settingsFile, policy.lines, 'policy-sets', index);
      const versioned = declaredSets.get(entry)?.content != null;
      if (versioned) errors.push(`${where}policy "${policy.name}" names policy set "${entry}", a versioned set: its policies come from its folder, never by membership`);
      const id = liveIds.get(entry);
      if (id !== undefined || declaredSets.has(entry)) return id ?? entry;
      const near = closest(entry, known);
      errors.push(`${where}policy "${policy.name}" names policy set "${entry}", which neither the organization nor this repo has${near === null ? '' : `; did you mean "${near}"?`}`);
      return entry;
    });
    return { ...policy, policySets: resolved };
  });
  const warnings: string[] = [];
  const policySets = declared.policySets?.map((set) => resolveScope(set, live, errors, warnings));
  const pools = declared.pools.map((pool) => resolvePoolAccess(pool, live, errors, warnings));
  return { declared: { ...declared, policies, pools, ...(policySets === undefined ? {} : { policySets }) }, errors, warnings };
}

/** An agent pool's access lists by name, as a set's scope: ids stay, names and wildcards become the ids they match. */
function resolvePoolAccess(pool: DeclaredPool, live: LiveState, errors: string[], warnings: string[]): DeclaredPool {
  const all = [pool.allowedWorkspaces, pool.allowedProjects ?? null, pool.excludedWorkspaces ?? null];
  if (all.every((list) => list === null || list.every((e) => e.startsWith('ws-') || e.startsWith('prj-')))) return pool;
  const list = idList(`agent pool "${pool.name}"`, (key, index) => at(pool.file, pool.lines, key, index), errors, warnings);
  return {
    ...pool,
    allowedWorkspaces: list('allowed-workspaces', pool.allowedWorkspaces, 'ws-', live.workspaces, false),
    ...(pool.allowedProjects === undefined ? {} : { allowedProjects: list('allowed-projects', pool.allowedProjects, 'prj-', live.projects, true) }),
    ...(pool.excludedWorkspaces === undefined ? {} : { excludedWorkspaces: list('excluded-workspaces', pool.excludedWorkspaces, 'ws-', live.workspaces, false) }),
  };
}

/** Resolves one list of names, wildcards and ids of `owner` (`policy set "x"`, `agent pool "y"`) into sorted ids. */
function idList(owner: string, where: (key: string, index: number) => string, errors: string[], warnings: string[]) {
  return (key: string, entries: string[] | null, prefix: string, named: Named | undefined, caseless: boolean): string[] | null => {
    if (entries === null) return null;
    const ids = entries.flatMap((entry, index) => {
      if (entry.startsWith(prefix)) return [entry];
      const found = matching(entry, named ?? [], caseless);
      if (found.length > 0) return found;
      if (entry.includes('*')) {
        warnings.push(`${where(key, index)}${owner}: ${key} "${entry}" matches nothing in the organization`);
        return [];
      }
      const near = closest(entry, (named ?? []).map((n) => n.name));
      errors.push(`${where(key, index)}${owner}: ${key} "${entry}" names nothing in the organization${near === null ? '' : `; did you mean "${near}"?`}`);
      return [];
    });
    return [...new Set(ids)].sort();
  };
}

type Named = ReadonlyArray<{ id: string; name: string }>;

/** `file:line: ` of a declared list's entry, as every problem of the declared repo begins; '' without a file. */
function at(file: string | null, lines: EntryLines | undefined, key: string, index: number): string {
  if (file === null) return '';
  const line = lines?.[`${key}.${index}`] ?? lines?.[key];
  return line === undefined ? `${file}: ` : `${file}:${line}: `;
}

/** The set with each scope list in ids; what matches nothing is an error (a plain name) or a warning (a wildcard). */
function resolveScope(set: DeclaredPolicySet, live: LiveState, errors: string[], warnings: string[]): DeclaredPolicySet {
  const list = idList(`policy set "${set.name}"`, (key, index) => at(set.settingsFile, set.lines, key, index), errors, warnings);
  const { workspaces, projects, workspaceExclusions, projectExclusions } = set.scope;
  const scope: SetScope = {
    workspaces: list('workspaces', workspaces, 'ws-', live.workspaces, false),
    projects: list('projects', projects, 'prj-', live.projects, true),
    workspaceExclusions: list('workspace-exclusions', workspaceExclusions, 'ws-', live.workspaces, false),
    projectExclusions: list('project-exclusions', projectExclusions, 'prj-', live.projects, true),
  };
  return { ...set, scope };
}

/** The ids whose names match `pattern`: a name, or `*` as its prefix, suffix or both. Project names match without case. */
function matching(pattern: string, named: Named, caseless: boolean): string[] {
  const fold = (text: string) => (caseless ? text.toLowerCase() : text);
  const p = fold(pattern);
  const starts = p.startsWith('*');
  const ends = p.length > 1 && p.endsWith('*');
  const core = p.slice(starts ? 1 : 0, ends ? -1 : undefined);
  const test = (name: string) => {
    const n = fold(name);
    if (starts && ends) return n.includes(core);
    if (starts) return n.endsWith(core);
    if (ends) return n.startsWith(core);
    return n === core;
  };
  return named.filter((n) => test(n.name)).map((n) => n.id);
}
