/**
 * Names where the service wants ids: a policy's `policy-sets` by set name, resolved against the live sets and the sets
 * this source declares, and a set's workspaces and projects by name, with `*` as prefix, suffix or both (as the vendor's
 * `tfe_workspace_ids` takes them), and an agent pool's access lists the same way, against the lists the live read made.
 * Pure: the declared state comes back with every name it can resolve turned into its id; a name of a set the plan
 * creates stays a name, which the apply resolves once the set exists; a name that matches nothing is an error naming
 * it, its file and line, and the closest match.
 *
 * A scope entry is a workspace's (or project's) name first: the organization's one of that name is meant even when the
 * name looks like an id (`ws-staging`). It is an id only when no name matches it, it has an id's shape (`api/ids.ts`)
 * and holds no `*`; an id is then checked against the list read, so one that names nothing is a plan error, not a 422 at
 * apply. Names are compared in Unicode NFC, so the same name typed in decomposed form (NFD) matches.
 */
import { hasIdShape, type IdKind } from '../api/ids.js';
import type { DeclaredPolicySet, DeclaredPool, DeclaredState, EntryLines, SetScope } from '../declared/types.js';
import type { LiveState } from '../model.js';
import { closest } from '../suggest.js';
import type { WildcardMatch } from './types.js';

export interface Resolved {
  declared: DeclaredState;
  errors: string[];
  warnings: string[];
  /** The wildcards of each set's and pool's lists and what they matched, by `scopeKey`, for the plan to show. */
  wildcards: Map<string, WildcardMatch[]>;
}

/** The key of a set's or a pool's wildcards in `Resolved.wildcards`. */
export function scopeKey(resource: 'policy-set' | 'agent-pool', name: string): string {
  return `${resource}:${name}`;
}

export function resolveNames(declared: DeclaredState, live: LiveState): Resolved {
  const errors: string[] = [];
  const warnings: string[] = [];
  const liveIds = new Map((live.policySets ?? []).map((set) => [set.name, set.id]));
  const declaredSets = new Map((declared.policySets ?? []).map((set) => [set.name, set]));
  const known = [...new Set([...liveIds.keys(), ...declaredSets.keys()])].sort();
  const isSetId = (entry: string) => hasIdShape('policy-set', entry);
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
  const wildcards = new Map<string, WildcardMatch[]>();
  const context = { live, errors, warnings, wildcards };
  const policySets = declared.policySets?.map((set) => resolveScope(set, context));
  const pools = declared.pools.map((pool) => resolvePoolAccess(pool, context));
  return { declared: { ...declared, policies, pools, ...(policySets === undefined ? {} : { policySets }) }, errors, warnings, wildcards };
}

interface Context {
  live: LiveState;
  errors: string[];
  warnings: string[];
  wildcards: Map<string, WildcardMatch[]>;
}

type Named = ReadonlyArray<{ id: string; name: string }>;

/** How one list is read: its key, what its entries are, and what `["*"]` should be instead. */
interface ListRule {
  key: string;
  kind: Extract<IdKind, 'workspace' | 'project'>;
  /** What to write instead of `*` for every workspace, today's and tomorrow's; null when nothing says that. */
  everything: string | null;
}

const WORKSPACES = (key: string, everything: string | null = null): ListRule => ({ key, kind: 'workspace', everything });
const PROJECTS = (key: string, everything: string | null = null): ListRule => ({ key, kind: 'project', everything });

/** The set with each scope list in ids; what matches nothing is an error (a plain name or an id) or a warning (a wildcard). */
function resolveScope(set: DeclaredPolicySet, context: Context): DeclaredPolicySet {
  const list = idList(`policy set "${set.name}"`, scopeKey('policy-set', set.name), (key, index) => at(set.settingsFile, set.lines, key, index), context);
  const { workspaces, projects, workspaceExclusions, projectExclusions } = set.scope;
  const scope: SetScope = {
    workspaces: list(WORKSPACES('workspaces', 'global: true'), workspaces),
    projects: list(PROJECTS('projects', 'global: true'), projects),
    workspaceExclusions: list(WORKSPACES('workspace-exclusions'), workspaceExclusions),
    projectExclusions: list(PROJECTS('project-exclusions'), projectExclusions),
  };
  return { ...set, scope };
}

/** An agent pool's access lists by name, as a set's scope: names, wildcards and ids become the ids they match. */
function resolvePoolAccess(pool: DeclaredPool, context: Context): DeclaredPool {
  const list = idList(`agent pool "${pool.name}"`, scopeKey('agent-pool', pool.name), (key, index) => at(pool.file, pool.lines, key, index), context);
  return {
    ...pool,
    allowedWorkspaces: list(WORKSPACES('allowed-workspaces', 'organization-scoped: true'), pool.allowedWorkspaces),
    ...(pool.allowedProjects === undefined ? {} : { allowedProjects: list(PROJECTS('allowed-projects', 'organization-scoped: true'), pool.allowedProjects) }),
    ...(pool.excludedWorkspaces === undefined ? {} : { excludedWorkspaces: list(WORKSPACES('excluded-workspaces'), pool.excludedWorkspaces) }),
  };
}

/** Resolves the lists of `owner` (`policy set "x"`, `agent pool "y"`) into sorted ids; records under `key` what each wildcard matched. */
function idList(owner: string, key: string, where: (key: string, index: number) => string, context: Context) {
  const wildcards: WildcardMatch[] = [];
  context.wildcards.set(key, wildcards);
  return (rule: ListRule, entries: string[] | null): string[] | null => {
    if (entries === null) return null;
    const named = rule.kind === 'workspace' ? context.live.workspaces : context.live.projects;
    const ids = entries.flatMap((entry, index) => {
      const found = resolveEntry(entry, rule, named);
      if (found.wildcard !== null) wildcards.push(found.wildcard);
      const problem = entryProblem(owner, rule, entry, found, named);
      if (problem !== null) (problem.error ? context.errors : context.warnings).push(`${where(rule.key, index)}${problem.text}`);
      return found.matched.map((match) => match.id);
    });
    return [...new Set(ids)].sort();
  };
}

/** `file:line: ` of a declared list's entry, as every problem of the declared repo begins; '' without a file. */
function at(file: string | null, lines: EntryLines | undefined, key: string, index: number): string {
  if (file === null) return '';
  const line = lines?.[`${key}.${index}`] ?? lines?.[key];
  return line === undefined ? `${file}: ` : `${file}:${line}: `;
}

interface Found {
  matched: Array<{ id: string; name: string }>;
  /** The entry as a wildcard and what it matched; null for a name or an id. */
  wildcard: WildcardMatch | null;
}

/** One entry: a name (NFC, projects without case), a wildcard, or else an id that the list read holds. */
function resolveEntry(entry: string, rule: ListRule, named: Named | undefined): Found {
  const caseless = rule.kind === 'project';
  const matched = named === undefined ? [] : matching(entry, named, caseless);
  if (entry.includes('*')) return { matched, wildcard: { field: rule.key, pattern: entry, matched: matched.map((m) => m.name).sort() } };
  if (matched.length > 0 || !hasIdShape(rule.kind, entry)) return { matched, wildcard: null };
  // An id: checked against the list when it was read; taken as it is when no list was (the planner's own tests).
  if (named === undefined) return { matched: [{ id: entry, name: entry }], wildcard: null };
  return { matched: named.filter((n) => n.id === entry), wildcard: null };
}

/** What the plan says of an entry: `["*"]` is a snapshot; a wildcard that matches nothing warns; a name or id that does is an error. */
function entryProblem(owner: string, rule: ListRule, entry: string, found: Found, named: Named | undefined): { error: boolean; text: string } | null {
  const what = rule.kind === 'workspace' ? 'workspaces' : 'projects';
  if (entry === '*') {
    const instead = rule.everything === null ? '' : `; for every ${rule.kind}, today's and tomorrow's, write ${rule.everything} instead`;
    return { error: false, text: `${owner}: ${rule.key} ["*"] is a snapshot of the organization's ${found.matched.length} ${what} when the plan is made: a ${rule.kind} made later is not in it${instead}` };
  }
  if (found.matched.length > 0) return null;
  if (found.wildcard !== null) return { error: false, text: `${owner}: ${rule.key} "${entry}" matches nothing in the organization` };
  if (hasIdShape(rule.kind, entry)) return { error: true, text: `${owner}: ${rule.key} "${entry}" names no ${rule.kind} of the organization, by name or by id` };
  const near = closest(entry.normalize('NFC'), (named ?? []).map((n) => n.name.normalize('NFC')));
  return { error: true, text: `${owner}: ${rule.key} "${entry}" names nothing in the organization${near === null ? '' : `; did you mean "${near}"?`}` };
}

/** The entries whose names match `pattern`: a name, or `*` as its prefix, suffix or both; in NFC, projects without case. */
function matching(pattern: string, named: Named, caseless: boolean): Array<{ id: string; name: string }> {
  const fold = (text: string) => (caseless ? text.normalize('NFC').toLowerCase() : text.normalize('NFC'));
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
  return named.filter((n) => test(n.name)).map(({ id, name }) => ({ id, name }));
}
