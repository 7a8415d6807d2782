/** Validation of policy create and update bodies. */
import type { EnforcementLevel } from '../model.js';
import { invalid, isObject } from './http.js';
import { kindWord, levelsOf, type RecordKind } from './records.js';
import type { OrgRecord, PolicyRecord } from './store.js';
import type { Behaviour } from './types.js';
import { isVersioned } from './policy-set-documents.js';
import { setKind } from './policy-set-input.js';
import { checkName, optionalString, readDocument, relationshipIds } from './validate.js';

export type PolicyCreate = Pick<PolicyRecord, 'name' | 'description' | 'kind' | 'query' | 'level' | 'policySetIds'>;

export interface PolicyUpdate {
  description?: string | null;
  query?: string;
  level?: EnforcementLevel;
}

export function parsePolicyCreate(body: unknown, org: OrgRecord, nameTaken: (name: string) => boolean, behaviour: Behaviour): PolicyCreate {
  const { attributes, relationships } = readDocument(body, 'policies');
  const name = checkName(attributes.name);
  if (nameTaken(name)) throw invalid('Name has already been taken', '/data/attributes/name');
  // The kinds a policy takes are a set's: the dialect's words, each refused in that dialect's wording (setKind).
  const kind = setKind(attributes.kind ?? behaviour.nativeKind, behaviour);
  if (behaviour.rejectEnforceWithLevel && attributes.enforce !== undefined && attributes['enforcement-level'] !== undefined) {
    throw invalid('send enforcement-level or the deprecated enforce, not both', '/data/attributes/enforce');
  }
  const description = optionalString(attributes, 'description', true) ?? null;
  const query = checkQuery(kind, optionalString(attributes, 'query', false));
  if (kind === 'opa' && query === undefined) throw invalid("Query can't be blank for opa policies", '/data/attributes/query');
  const fallback: EnforcementLevel = kind === 'opa' ? 'advisory' : 'hard-mandatory';
  const level = readLevel(attributes, kind, name, behaviour) ?? fallback;
  const policySetIds = relationshipIds(relationships, 'policy-sets', 'policy-sets', (id) => org.policySets.has(id)) ?? [];
  // A set with versions or a VCS repository takes its policies from them (routes-policy-set-members.ts).
  const versioned = policySetIds.find((id) => {
    const set = org.policySets.get(id);
    return set !== undefined && isVersioned(set);
  });
  if (versioned !== undefined) throw invalid(`Policies cannot be added to a versioned policy set (${versioned})`, '/data/relationships/policy-sets');
  return { name, description, kind, query: query ?? null, level, policySetIds };
}

/** A `query` sent for a native policy is ignored (200), as the service does. */
export function parsePolicyUpdate(body: unknown, policy: PolicyRecord, behaviour: Behaviour): PolicyUpdate {
  const { attributes } = readDocument(body, 'policies');
  if (attributes.name !== undefined && attributes.name !== policy.name) throw invalid('Name cannot be changed', '/data/attributes/name');
  if (attributes.kind !== undefined && attributes.kind !== kindWord(policy.kind, behaviour.nativeKind)) throw invalid('Kind cannot be changed', '/data/attributes/kind');
  const update: PolicyUpdate = {};
  const description = optionalString(attributes, 'description', true);
  if (description !== undefined) update.description = description;
  if (policy.kind === 'opa') {
    const query = checkQuery(policy.kind, optionalString(attributes, 'query', false));
    if (query !== undefined) update.query = query;
  }
  const level = readLevel(attributes, policy.kind, policy.name, behaviour);
  if (level !== undefined) update.level = level;
  return update;
}

function checkQuery(kind: RecordKind, query: string | null | undefined): string | undefined {
  if (query === undefined || query === null) return undefined;
  const pointer = '/data/attributes/query';
  if (kind !== 'opa') throw invalid('query is only valid for opa policies', pointer);
  if (query.trim() === '') throw invalid("Query can't be blank for opa policies", pointer);
  return query;
}

/**
 * `enforcement-level` wins; else the deprecated `enforce` array decides; undefined when neither is
 * sent. `legacy`: `enforcement-level` is unknown to the server and ignored.
 */
function readLevel(attributes: Record<string, unknown>, kind: RecordKind, name: string, behaviour: Behaviour): EnforcementLevel | undefined {
  const legacy = behaviour.legacyEnforce;
  const levels = levelsOf(kind);
  const explicit = legacy ? undefined : attributes['enforcement-level'];
  if (explicit !== undefined) {
    if (!levels.includes(explicit as EnforcementLevel)) {
      throw invalid(`enforcement-level must be one of ${levels.join(', ')} for ${kind} policies`, '/data/attributes/enforcement-level');
    }
  }
  const enforce = attributes.enforce;
  if (enforce === undefined) return explicit as EnforcementLevel | undefined;
  if (!Array.isArray(enforce)) throw invalid('enforce must be an array', '/data/attributes/enforce');
  let fromEnforce: EnforcementLevel | undefined;
  for (const [i, rule] of enforce.entries()) {
    const pointer = `/data/attributes/enforce/${i}`;
    if (!isObject(rule) || typeof rule.path !== 'string' || typeof rule.mode !== 'string') {
      throw invalid('each enforce element needs a path and a mode', pointer);
    }
    if (!levels.includes(rule.mode as EnforcementLevel)) throw invalid(`mode must be one of ${levels.join(', ')} for ${kind} policies`, `${pointer}/mode`);
    const matches = rule.path === `${name}.${enforceExt(kind, behaviour)}`;
    fromEnforce ??= kind === 'native' && !matches ? 'hard-mandatory' : (rule.mode as EnforcementLevel);
  }
  return (explicit as EnforcementLevel | undefined) ?? fromEnforce;
}

/** The extension of a policy's `enforce` path. */
export function enforceExt(kind: RecordKind, behaviour: Pick<Behaviour, 'nativeKind'>): string {
  if (kind === 'native') return behaviour.nativeKind;
  return kind === 'opa' ? 'rego' : kind;
}
