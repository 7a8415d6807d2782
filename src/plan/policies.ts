import type { DeclaredPolicy } from '../declared/types.js';
import type { LivePolicy } from '../model.js';
import { created, diffField, type Fields, sameSet, sameText, sortedIds, strictEqual } from './fields.js';
import { markerRollout, stripMarker } from './marker.js';
import { recordWords } from './rollout-words.js';
import { differsIn } from './reasons.js';
import { claimedElsewhere, type Match, type Owner, type PolicyPair } from './pairs.js';
import { livePolicyRef, policySpec } from './refs.js';
import type { CodeSummary, PlanOptions, PolicyChange } from './types.js';

export interface PolicyPlan {
  changes: PolicyChange[];
  warnings: string[];
  /** Declared policies that another source owns: plan errors, never written. */
  conflicts: string[];
}

/** Creates, replaces and updates for the declared policies (prune is decided elsewhere), from their pairs. */
export function planPolicies(pairs: readonly PolicyPair[], options: PlanOptions): PolicyPlan {
  const changes: PolicyChange[] = [];
  const warnings: string[] = [];
  const conflicts: string[] = [];
  for (const { declared: policy, live: current, owner, markedBy } of pairs) {
    if (policy === null) continue;
    if (current === null) {
      changes.push(createChange(policy));
      continue;
    }
    if (owner === 'another-source') {
      if (claimedElsewhere(owner, options)) {
        conflicts.push(ownedElsewhere(policy.name, markedBy!, current.kind === policy.kind ? 'updates' : 'replaces'));
        continue;
      }
      warnings.push(
        `policy "${policy.name}" carries the ownership marker of source "${markedBy!}"; this source adopts it (adopt is on). ` +
          'Declare each policy in one source only, or the sources will keep taking it from each other.',
      );
    } else if (owner === 'may-be-taken' && options.ownership === 'marker') {
      warnings.push(
        `policy "${policy.name}" exists without an ownership marker (made by hand, or before markers); this source adopts it and marks it as its own.`,
      );
    }
    if (current.kind !== policy.kind) {
      changes.push(replaceChange(policy, current));
      continue;
    }
    const update = updateChange(policy, current, owner, options);
    if (update !== null) changes.push(update);
    if (policy.policySets !== null && !setsKnown(current)) {
      warnings.push(
        `policy "${policy.name}" is in ${current.policySetCount} policy sets, but the API names only ${current.policySetIds.length} of them; ` +
          'its policy-sets are left as they are this pass.',
      );
    }
  }
  for (const policy of pairs.flatMap((pair) => (pair.declared?.policySets?.length === 0 ? [pair.declared] : []))) {
    warnings.push(
      `policy "${policy.name}" declares policy-sets: [], so it is in no policy set and will not be enforced. ` +
        'Name its sets, or leave policy-sets out to leave its membership as it is.',
    );
  }
  return { changes, warnings, conflicts };
}

/** Whether the live policy's sets are all named (a list may leave the ids out while `policy-set-count` says how many). */
function setsKnown(current: LivePolicy): boolean {
  return (current.policySetCount ?? current.policySetIds.length) <= current.policySetIds.length;
}

/** A conflict: a policy this source declares, or would prune, that carries another source's marker. */
export function ownedElsewhere(name: string, owner: string, what: 'updates' | 'replaces' | 'deletes'): string {
  return (
    `conflict: policy "${name}" carries the ownership marker of source "${owner}"; this source never ${what} it. ` +
    'Declare each policy in one source only, or take it over with --adopt (adopt: true on the source).'
  );
}

function createChange(policy: DeclaredPolicy): PolicyChange {
  const fields = created({
    kind: policy.kind,
    description: policy.description,
    'enforcement-level': policy.enforcementLevel,
    query: policy.kind === 'opa' ? policy.query : null,
    'policy-sets': policy.policySets === null ? null : sortedIds(policy.policySets),
    code: declaredCode(policy),
    rollout: recordWords(policy.rolloutRecord ?? null),
  });
  return {
    resource: 'policy', name: policy.name, id: null, action: 'create', reason: 'not in the live state', fields,
    declared: policySpec(policy), live: null, uploadCode: true, adoptMarker: false,
  };
}

/**
 * Kind cannot change: delete, then create. The apply carries the live policy sets into the create unless the repo
 * names them; the replace counts toward max-deletes.
 */
function replaceChange(policy: DeclaredPolicy, current: LivePolicy): PolicyChange {
  const fields: Fields = { kind: { before: current.kind, after: policy.kind } };
  diffField(fields, 'description', stripMarker(current.description), policy.description, sameText);
  diffField(fields, 'enforcement-level', current.enforcementLevel, policy.enforcementLevel, strictEqual);
  diffField(fields, 'query', current.query, policy.kind === 'opa' ? policy.query : null, strictEqual);
  if (!sameCode(policy, current)) fields['code'] = { before: current.code, after: declaredCode(policy) };
  return {
    resource: 'policy', name: policy.name, id: current.id, action: 'replace', reason: 'kind changed', fields,
    declared: policySpec(policy), live: livePolicyRef(current), uploadCode: true, adoptMarker: false,
  };
}

function updateChange(policy: DeclaredPolicy, current: LivePolicy, owner: Owner, options: PlanOptions): PolicyChange | null {
  const fields: Fields = {};
  diffField(fields, 'description', stripMarker(current.description), policy.description, sameText);
  diffField(fields, 'enforcement-level', current.enforcementLevel, policy.enforcementLevel, strictEqual);
  if (policy.kind === 'opa') diffField(fields, 'query', current.query, policy.query, strictEqual);
  // Membership is managed only where the settings file names the sets, and changed by adding and removing.
  if (policy.policySets !== null && setsKnown(current)) diffField(fields, 'policy-sets', sortedIds(current.policySetIds), sortedIds(policy.policySets), sameSet);
  if (!sameCode(policy, current)) fields['code'] = { before: current.code, after: declaredCode(policy) };
  // A rollout's record lives in the marker: a record that moves (started, promoted, gone) rewrites the description.
  diffField(fields, 'rollout', recordWords(markerRollout(current.description)), recordWords(policy.rolloutRecord ?? null), strictEqual);
  // Under `ownership: marker` a policy this source writes carries its marker: one without it gets it.
  const adopt = options.ownership === 'marker' && owner !== 'this-source';
  const names = Object.keys(fields);
  if (names.length === 0 && !adopt) return null;
  const differs = differsIn(names);
  // A promotion says so, in the plan, the log and the notification of the pass.
  const promoted = policy.rolloutRecord?.state === 'promoted' && fields['rollout'] !== undefined && fields['enforcement-level'] !== undefined;
  const reason = [adopt ? 'adopt: add ownership marker' : '', promoted ? 'rollout promoted' : '', differs].filter(Boolean).join('; ');
  return {
    resource: 'policy', name: policy.name, id: current.id, action: 'update', reason, fields,
    declared: policySpec(policy), live: livePolicyRef(current), uploadCode: 'code' in fields, adoptMarker: adopt,
  };
}

/**
 * Whether the live code equals the declared code, by digest (byte order mark and line ends do not count, see
 * src/code-content.ts); code never uploaded, or not fetched, always differs.
 */
export function sameCode(declared: DeclaredPolicy, live: LivePolicy): boolean {
  return live.codeDigest !== null && live.codeDigest === declared.codeDigest;
}

/**
 * The declared policies whose code diff a plan shows (the live code was downloaded and differs): only their texts
 * need loading (`withCodeTexts`) before planning. Creates and replaces describe the declared code by its summary.
 */
export function policiesShowingCode(pairs: ReadonlyArray<Match<DeclaredPolicy, LivePolicy>>): Set<string> {
  const names = new Set<string>();
  for (const { declared: policy, live: current } of pairs) {
    if (policy !== null && current !== null && current.kind === policy.kind && current.code !== null && !sameCode(policy, current)) names.add(policy.name);
  }
  return names;
}

/** The declared side of a code field: the text when it was loaded for a diff, else its summary. */
function declaredCode(policy: DeclaredPolicy): string | CodeSummary {
  return policy.code ?? { sha256: policy.codeDigest, bytes: policy.codeSource.size, lines: policy.codeLines };
}
