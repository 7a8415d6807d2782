/** The diff of policy sets: creates, updates, kind changes as replaces, and prune, from their pairs. Pure. */
import type { DeclaredPolicySet, SetContent, SetRolloutRecord, SetTags } from '../declared/types.js';
import { LEVEL_RANK, selectorText, type EnforcementLevel, type LivePolicySet } from '../model.js';
import { count } from '../plural.js';
import { created, diffField, removed, sameSet, sameText, sortedIds, strictEqual, type Fields } from './fields.js';
import { markerSet, markerSetRollout, stripMarker } from './marker.js';
import { recordWords } from './rollout-words.js';
import { levelMarks, markedLevel } from './set-rollout.js';
import { ownsUndeclared, type SetPair } from './pairs.js';
import { differsIn } from './reasons.js';
import { livePolicySetRef, policySetSpec } from './refs.js';
import type { ContentFiles, PlanOptions, PolicySetChange } from './types.js';
import { byCodeUnit } from '../order.js';

export interface SetPlan {
  changes: PolicySetChange[];
  warnings: string[];
  conflicts: string[];
}

/** e.g. `1.8 MB`, `85.3 kB`, `512 B`: sizes as a person reads them (powers of 1000). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** e.g. `versioned, 281 policies, 4 modules, 719.9 kB (87.3 kB packed)`; a set declared in YAML says whose policies it holds. */
export function describeSet(set: Pick<DeclaredPolicySet, 'content'>): string {
  const content = set.content;
  if (content === null) return 'its members are the policies that name it';
  const size = content.files.reduce((sum, file) => sum + file.size, 0);
  return `versioned, ${count(content.policies, 'policy', 'policies')}, ${count(content.modules, 'module')}, ${formatBytes(size)} (${formatBytes(content.bytes)} packed)`;
}

/** The content as a field shows it: its files, size and the start of its digest. */
function contentValue(content: SetContent): string {
  return `${count(content.files.length, 'file')}, ${formatBytes(content.bytes)} (sha256:${content.digest.slice(0, 12)})`;
}

/**
 * `members`: by set id, the declared policies that list the set in their `policy-sets`. A set so listed is never
 * pruned, though it is not declared: the plan puts those policies in it.
 */
export function planPolicySets(pairs: readonly SetPair[], options: PlanOptions, members: ReadonlyMap<string, readonly string[]> = new Map()): SetPlan {
  const plan: SetPlan = { changes: [], warnings: [], conflicts: [] };
  for (const { declared, live, owner, markedBy } of pairs) {
    if (live !== null) plan.warnings.push(...versionWarnings(live));
    if (declared === null) {
      if (live === null || !options.prune || !ownsUndeclared(owner, options)) continue;
      const listedBy = members.get(live.id);
      if (listedBy !== undefined) {
        const names = listedBy.map((name) => `"${name}"`).join(', ');
        plan.warnings.push(`policy set "${live.name}" is not declared, but ${count(listedBy.length, 'declared policy', 'declared policies')} (${names}) ${listedBy.length === 1 ? 'lists' : 'list'} it in policy-sets: kept, not pruned`);
        continue;
      }
      plan.changes.push(deleteChange(live, 'not declared, prune is on'));
      continue;
    }
    if (live === null) {
      plan.changes.push(createChange(declared));
      continue;
    }
    if (owner === 'another-source' && options.adopt === true) {
      plan.warnings.push(`policy set "${declared.name}" carries the ownership marker of source "${markedBy!}"; this source adopts it (adopt is on).`);
    }
    if (owner === 'another-source' && options.adopt !== true) {
      plan.conflicts.push(
        `conflict: policy set "${declared.name}" carries the ownership marker of source "${markedBy!}"; this source never changes it. ` +
          'Declare each policy set in one source only, or take it over with --adopt (adopt: true on the source).',
      );
      continue;
    }
    if (live.vcsBacked) {
      plan.conflicts.push(`conflict: policy set "${declared.name}" is backed by a VCS repository on the service; this source never uploads to it. Rename one of them`);
      continue;
    }
    if (owner === 'may-be-taken' && options.ownership === 'marker') {
      plan.warnings.push(`policy set "${declared.name}" exists without an ownership marker (made by hand, or before markers); this source adopts it and marks it as its own.`);
    }
    if (live.kind !== declared.kind) {
      plan.changes.push({ ...createChange(declared), action: 'replace', id: live.id, live: livePolicySetRef(live), reason: 'kind changed' });
      continue;
    }
    const update = updateChange(declared, live, owner !== 'this-source' && options.ownership === 'marker', options);
    if (update !== null) plan.changes.push(update);
  }
  return plan;
}

/** The plan says when the service enforces an older version than the newest: the newest errored, or is still being read. */
function versionWarnings(live: LivePolicySet): string[] {
  const newest = live.newestVersion;
  if (newest === null || newest.id === live.currentVersionId) return [];
  const enforced = live.currentVersionId === null ? 'no version is enforced yet' : `the service still enforces ${live.currentVersionId}`;
  const why = newest.status === 'errored' ? `errored: ${newest.errorMessage ?? 'no message'}` : `is ${newest.status}`;
  return [`policy set "${live.name}": its newest version ${newest.id} ${why}; ${enforced}`];
}

/**
 * The one table of a set's scope lists: each as a plan field and the API's relationship of that name, its key in the
 * declared scope, and its key in the live set. In the plan, (after resolution) sorted ids; a list that is not managed
 * is no field.
 */
export const SET_SCOPES = [
  ['workspaces', 'workspaces', 'workspaceIds'],
  ['projects', 'projects', 'projectIds'],
  ['workspace-exclusions', 'workspaceExclusions', 'workspaceExclusionIds'],
  ['project-exclusions', 'projectExclusions', 'projectExclusionIds'],
] as const;

/**
 * A set's `tags:` as plan fields: `tags`, its selectors as written (`env:prod`, `team`, `!sandbox`, sorted), and with
 * inclusions the `scoping-type` (`tag`) and `tag-match` they are sent with. Not managed (null): no field.
 */
function tagFields(tags: SetTags | null): Record<string, string | string[]> {
  if (tags === null) return {};
  const includes = tags.selectors.some((s) => !s.exclude);
  return { tags: tags.selectors.map(selectorText).sort(), ...(includes ? { 'scoping-type': 'tag', 'tag-match': tags.match } : {}) };
}

/** Drift in a set's tag selectors, its scoping type or its match, where its declaration manages tags. */
function diffTags(fields: Fields, tags: SetTags | null, live: LivePolicySet): void {
  if (tags === null) return;
  const after = tagFields(tags);
  diffField(fields, 'tags', (live.tagSelectors ?? []).map(selectorText).sort(), after['tags'] as string[], sameSet);
  // A service that does not answer the scoping type or the match is not drift: only a different answer is.
  if (after['scoping-type'] !== undefined && live.scopingType != null) diffField(fields, 'scoping-type', live.scopingType, after['scoping-type'] as string, strictEqual);
  if (after['tag-match'] !== undefined && live.tagMatch != null) diffField(fields, 'tag-match', live.tagMatch, after['tag-match'] as string, strictEqual);
}

/** Parameters as a plan shows them: `key=value`, a sensitive one as `key (sensitive)`, never its value. */
function shownParameters(parameters: ReadonlyArray<{ key: string; value: string | null; sensitive: boolean }>): string[] {
  return parameters.map((p) => (p.sensitive ? `${p.key} (sensitive)` : `${p.key}=${p.value ?? ''}`)).sort();
}

function settingValues(set: DeclaredPolicySet): Fields {
  const rollout = setRolloutWords(set.rolloutRecord ?? null, set);
  return created({
    ...(rollout === null ? {} : { rollout }),
    kind: set.kind,
    description: set.description,
    global: set.global,
    overridable: set.overridable,
    'agent-enabled': set.agentEnabled,
    'policy-tool-version': set.policyToolVersion,
    ...Object.fromEntries(SET_SCOPES.map(([field, key]) => [field, set.scope[key]])),
    ...tagFields(set.tags ?? null),
    parameters: set.parameters === null ? null : shownParameters(set.parameters),
    content: set.content === null ? null : contentValue(set.content),
  });
}

function createChange(set: DeclaredPolicySet): PolicySetChange {
  return {
    resource: 'policy-set', name: set.name, id: null, action: 'create', reason: describeSet(set), fields: settingValues(set),
    declared: policySetSpec(set), live: null, uploadContent: set.content !== null, adoptMarker: false,
  };
}

/** The files added, changed and removed from `before` to `after`, each list sorted by path. */
function contentFiles(before: ReadonlyArray<{ path: string; sha256: string }>, after: ReadonlyArray<{ path: string; sha256: string }>): ContentFiles {
  const was = new Map(before.map((f) => [f.path, f.sha256]));
  const is = new Set(after.map((f) => f.path));
  return {
    added: after.filter((f) => !was.has(f.path)).map((f) => f.path).sort(byCodeUnit),
    changed: after.filter((f) => was.has(f.path) && was.get(f.path) !== f.sha256).map((f) => f.path).sort(byCodeUnit),
    removed: before.filter((f) => !is.has(f.path)).map((f) => f.path).sort(byCodeUnit),
  };
}

/** A versioned set's rollout record in words, as its `rollout` field shows it: `held since …: 2 levels held back`. */
function setRolloutWords(record: SetRolloutRecord | null, set: DeclaredPolicySet): string | null {
  const words = recordWords(record);
  if (words === null || record === null || record.state === 'promoted') return words;
  const held = (set.content?.levels ?? []).filter((p) => p.level in LEVEL_RANK && LEVEL_RANK[markedLevel(p.name, record.enforced)] < LEVEL_RANK[p.level as EnforcementLevel]).length;
  return `${words}: ${count(held, 'level')} held back`;
}

/**
 * What a versioned set's rollout changes: its marker's record (the `rollout` field), whether the levels of the version
 * to upload differ from those of the version enforced (a new version is uploaded), and the reason's words when a
 * policy is promoted. The version enforced without a record is the folder its marker's digest names; a set whose
 * rollout is gone while its version holds levels back uploads the folder as declared.
 */
function rolloutChange(set: DeclaredPolicySet, live: LivePolicySet): { field: { before: string | null; after: string | null } | null; levelsChanged: boolean; reason: string } {
  const recorded = markerSetRollout(live.description);
  const wanted = set.rolloutRecord ?? null;
  if (set.content === null || (recorded === null && wanted === null)) return { field: null, levelsChanged: false, reason: '' };
  const asDeclared = levelMarks(set.content.levels ?? []);
  const enforcedNow = recorded === null ? asDeclared : recorded.enforced;
  const uploading = wanted === null ? asDeclared : wanted.enforced;
  const levelsChanged = enforcedNow !== uploading;
  const same = recorded?.digest === wanted?.digest && recorded?.startedAt === wanted?.startedAt && recorded?.state === wanted?.state && recorded?.enforced === wanted?.enforced;
  const field = same ? null : { before: setRolloutWords(recorded, set), after: setRolloutWords(wanted, set) };
  const promoted = recorded !== null && wanted !== null && recorded.digest === wanted.digest && levelsChanged;
  return { field, levelsChanged, reason: promoted ? 'rollout promoted' : '' };
}

function updateChange(set: DeclaredPolicySet, live: LivePolicySet, adopt: boolean, options: PlanOptions): PolicySetChange | null {
  const fields: Fields = {};
  diffField(fields, 'description', stripMarker(live.description), set.description, sameText);
  diffField(fields, 'global', live.global, set.global, strictEqual);
  if (set.overridable !== null) diffField(fields, 'overridable', live.overridable, set.overridable, strictEqual);
  if (set.agentEnabled !== null) diffField(fields, 'agent-enabled', live.agentEnabled, set.agentEnabled, strictEqual);
  if (set.policyToolVersion !== null) diffField(fields, 'policy-tool-version', live.policyToolVersion, set.policyToolVersion, strictEqual);
  for (const [field, key, liveKey] of SET_SCOPES) {
    const declaredIds = set.scope[key];
    if (declaredIds !== null) diffField(fields, field, sortedIds(live[liveKey]), sortedIds(declaredIds), sameSet);
  }
  diffTags(fields, set.tags ?? null, live);
  if (set.parameters !== null && live.parameters !== null) {
    const before = shownParameters(live.parameters);
    const after = shownParameters(set.parameters);
    const sensitiveChanged = set.parameters.some((p) => p.sensitive) && set.sensitiveDigest !== markerSet(live.description).sensitive;
    const shown = sensitiveChanged ? after.map((p) => (p.endsWith(' (sensitive)') ? p.replace(' (sensitive)', ' (sensitive, changed)') : p)) : after;
    if (!sameSet(before, after) || sensitiveChanged) fields['parameters'] = { before, after: shown };
  }
  const { content: recorded, version } = markerSet(live.description);
  const replaced = set.content !== null && recorded === set.content.digest ? notEnforced(live, version) : null;
  const rollout = rolloutChange(set, live);
  const upload = set.content !== null && (recorded !== set.content.digest || replaced !== null || rollout.levelsChanged);
  if (rollout.field !== null) fields['rollout'] = rollout.field;
  if (upload) fields['content'] = { before: replaced ?? (recorded === null ? null : `sha256:${recorded.slice(0, 12)}`), after: contentValue(set.content!) };
  if (Object.keys(fields).length === 0 && !adopt) return null;
  const reason = [adopt ? 'adopt: add ownership marker' : '', rollout.reason, differsIn(Object.keys(fields)), replaced ?? ''].filter((r) => r !== '').join('; ');
  const before = upload && recorded !== null && recorded !== set.content!.digest ? options.setFiles?.(recorded) : undefined;
  return {
    resource: 'policy-set', name: set.name, id: live.id, action: 'update', reason, fields, declared: policySetSpec(set), live: livePolicySetRef(live), uploadContent: upload, adoptMarker: adopt,
    ...(before === undefined ? {} : { contentFiles: contentFiles(before, set.content!.files) }),
  };
}

/**
 * Why the version the service enforces is not the one this source made ready (its marker records it beside the
 * content's digest), or null when it is: a version uploaded by hand, through the API, is drift, and the content is
 * uploaded again.
 */
function notEnforced(live: LivePolicySet, recorded: string | null): string | null {
  if (live.currentVersionId === recorded) return null;
  if (live.currentVersionId === null) return `no version is enforced, where this source made ${recorded!} ready`;
  return `current version ${live.currentVersionId} was not uploaded by this source`;
}

function deleteChange(live: LivePolicySet, reason: string): PolicySetChange {
  const fields = removed({ kind: live.kind, description: stripMarker(live.description) });
  return { resource: 'policy-set', name: live.name, id: live.id, action: 'delete', reason, fields, declared: null, live: livePolicySetRef(live), uploadContent: false, adoptMarker: false };
}
