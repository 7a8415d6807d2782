/**
 * The steps of a policy set's changes: its create (or replace: delete, then create) with its parameters and the
 * upload of its content, and its update. Ownership of a set a create meets is decided where every create's is
 * (`refuseMet`, plan/pairs.ts); the version's upload and poll are policy-set-version.ts's.
 */
import type { CreatePolicySetInput, PolicySet, PolicySetVersion, UpdatePolicySetInput } from '../api/types.js';
import { sensitiveValue } from '../declared/index.js';
import { errorMessage } from '../errors.js';
import { withMarker } from '../plan/marker.js';
import { refuseMet } from '../plan/pairs.js';
import { SET_SCOPES } from '../plan/policy-sets.js';
import type { PolicySetChange } from '../plan/types.js';
import type { SetTags } from '../declared/types.js';
import type { TagSelector } from '../model.js';
import type { ApplyOptions } from './options.js';
import { uploadVersion } from './policy-set-version.js';
import { nameTaken } from './steps.js';

/**
 * The set is created with the marker without content, and the marker records the content and its version once that is
 * ready: a version that errored leaves the marker without them, so the next plan uploads again.
 */
export async function createPolicySet(change: PolicySetChange, options: ApplyOptions): Promise<void> {
  const declared = change.declared!;
  if (change.action === 'replace' && change.live !== null) await options.api.deletePolicySet(change.live.id);
  const input = createInput(change, options);
  const made = await createOrFind(change, input, options);
  await syncParameters(made.id, change, made.found ? await options.api.listPolicySetParameters(made.id) : [], options);
  const ready = declared.content === null ? null : await uploadVersion(made.id, change, options);
  const description = describe(change, ready, options);
  if (made.found || description !== input.description) await options.api.updatePolicySet(made.id, { description });
}

function createInput(change: PolicySetChange, options: ApplyOptions): CreatePolicySetInput {
  const declared = change.declared!;
  const scope = Object.fromEntries(SET_SCOPES.flatMap(([, key, liveKey]) => (declared.scope[key] === null ? [] : [[liveKey, declared.scope[key]]])));
  return {
    name: change.name,
    description: describe(change, null, options),
    kind: declared.kind,
    global: declared.global,
    ...(declared.overridable === null ? {} : { overridable: declared.overridable }),
    ...(declared.agentEnabled === null ? {} : { agentEnabled: declared.agentEnabled }),
    ...(declared.policyToolVersion === null ? {} : { policyToolVersion: declared.policyToolVersion }),
    ...scope,
    ...tagInput(declared.tags ?? null),
  };
}

/** `tags:` as the create sends it: the selectors, and with inclusions the scoping type `tag` and the match. */
function tagInput(tags: SetTags | null): Pick<CreatePolicySetInput, 'tagSelectors' | 'scopingType' | 'tagMatch'> {
  if (tags === null || tags.selectors.length === 0) return {};
  const includes = tags.selectors.some((s) => !s.exclude);
  return { tagSelectors: tags.selectors.map((s) => ({ ...s })), ...(includes ? { scopingType: 'tag' as const, tagMatch: tags.match } : {}) };
}

/**
 * The set created, or the one of its name met instead: after a lost answer (found by name), or named in the 422 of a
 * name taken since the plan was made; either is used only when `refuseMet` says it is this source's.
 */
async function createOrFind(change: PolicySetChange, input: CreatePolicySetInput, options: ApplyOptions): Promise<{ id: string; found: boolean }> {
  const owns = (met: PolicySet) => refuseMet(metSet(met), input.kind, options, 'policy set') === null;
  try {
    return { id: (await options.api.createPolicySet(options.organization, input, owns)).id, found: false };
  } catch (error) {
    if (!nameTaken(error)) throw error;
    const existing = (await options.api.listPolicySets(options.organization, { search: change.name })).find((set) => set.name === change.name);
    if (existing === undefined) throw error;
    const refused = refuseMet(metSet(existing), input.kind, options, 'policy set');
    if (refused !== null) throw new Error(`${refused} (${errorMessage(error)})`, { cause: error });
    options.logger.warn({ resourceName: change.name, policySetId: existing.id }, 'policy set created by another run at the same time; using it');
    return { id: existing.id, found: true };
  }
}

/** A set as `refuseMet` reads it: a kind this tool does not know as the service sent it. */
function metSet(set: PolicySet): { name: string; description: string | null; kind: string } {
  return { name: set.name, description: set.description, kind: set.foreignKind ?? set.kind };
}

/** The settings that differ, and a new version when the content differs or another is enforced; the marker records it once ready. */
export async function updatePolicySet(change: PolicySetChange, options: ApplyOptions): Promise<void> {
  const declared = change.declared!;
  const id = change.id!;
  const ready = change.uploadContent ? await uploadVersion(id, change, options) : null;
  const input: UpdatePolicySetInput = {};
  if (change.fields['parameters'] !== undefined) await syncParameters(id, change, change.live?.parameters ?? [], options);
  const marked = change.fields['parameters'] !== undefined && declared.sensitiveDigest !== null;
  if (change.fields['description'] !== undefined || change.fields['rollout'] !== undefined || change.adoptMarker || change.uploadContent || marked) {
    input.description = describe(change, ready ?? recordedVersion(change), options);
  }
  if (change.fields['global'] !== undefined) input.global = declared.global;
  if (change.fields['overridable'] !== undefined && declared.overridable !== null) input.overridable = declared.overridable;
  if (change.fields['agent-enabled'] !== undefined && declared.agentEnabled !== null) input.agentEnabled = declared.agentEnabled;
  if (change.fields['policy-tool-version'] !== undefined) input.policyToolVersion = declared.policyToolVersion;
  if (Object.keys(input).length > 0) await options.api.updatePolicySet(id, input);
  await moveScope(change, options);
  await moveTags(change, options);
}

/**
 * The tag selectors that differ, removed first (so a set never holds inclusions beside a scope it is leaving), then
 * added; then the scoping type and match, where they differ.
 */
async function moveTags(change: PolicySetChange, options: ApplyOptions): Promise<void> {
  const tags = change.declared!.tags ?? null;
  if (tags === null) return;
  const live = change.live?.tagSelectors ?? [];
  const same = (a: TagSelector, b: TagSelector) => a.key === b.key && a.value === b.value && a.exclude === b.exclude;
  if (change.fields['tags'] !== undefined) {
    await options.api.removeTagSelectors(change.id!, live.filter((s) => !tags.selectors.some((t) => same(s, t))));
    await options.api.addTagSelectors(change.id!, tags.selectors.filter((s) => !live.some((t) => same(s, t))));
  }
  const input: UpdatePolicySetInput = {};
  if (change.fields['scoping-type'] !== undefined) input.scopingType = 'tag';
  if (change.fields['tag-match'] !== undefined) input.tagMatch = tags.match;
  if (Object.keys(input).length > 0) await options.api.updatePolicySet(change.id!, input);
}

/**
 * The version an update that uploads nothing leaves recorded: the one the service enforces, which the plan found to be
 * this source's (or the content would be uploaded).
 */
function recordedVersion(change: PolicySetChange): { id: string } | null {
  const current = change.live?.currentVersionId ?? null;
  return change.declared?.content == null || current === null ? null : { id: current };
}

/** Each scope list that differs: the declared ids added first, then the others removed. */
async function moveScope(change: PolicySetChange, options: ApplyOptions): Promise<void> {
  for (const [relationship, key, liveKey] of SET_SCOPES) {
    const declared = change.declared!.scope[key];
    if (change.fields[relationship] === undefined || declared === null) continue;
    const live = change.live!;
    await options.api.addToPolicySet(change.id!, relationship, declared.filter((id) => !live[liveKey].includes(id)));
    await options.api.removeFromPolicySet(change.id!, relationship, live[liveKey].filter((id) => !declared.includes(id)));
  }
}

/**
 * The description as written: under `ownership: marker` with the marker, which records a versioned set's content and
 * the version it became (`ready`: null until one is), and the keyed digest of its sensitive parameters.
 */
function describe(change: PolicySetChange, ready: Pick<PolicySetVersion, 'id'> | null, options: ApplyOptions): string | null {
  const description = change.declared?.description ?? null;
  // A set's rollout is kept in its marker, where any runner finds it: under `ownership: organization` too.
  const rollout = change.declared?.rollout ?? null;
  if (options.ownership !== 'marker' && rollout === null) return description;
  const digest = change.declared?.content?.digest;
  const content = digest === undefined || ready === null ? null : { digest, version: ready.id };
  return withMarker(description, options.source, { content, sensitive: change.declared?.sensitiveDigest ?? null, rollout });
}

/** The declared parameters made so: each created or updated (a sensitive one always sent again), the others deleted. */
async function syncParameters(setId: string, change: PolicySetChange, live: ReadonlyArray<{ id: string; key: string; value: string; sensitive: boolean }>, options: ApplyOptions): Promise<void> {
  const declared = change.declared!.parameters;
  if (declared === null) return;
  // Where the file is was checked when the repo was read; a set without content has no root to check it against again.
  const root = change.declared!.content?.root ?? null;
  for (const parameter of declared) {
    const context = { env: options.env ?? process.env, realRoot: root, ...(options.parameters === undefined ? {} : { allowance: options.parameters }) };
    const value = parameter.sensitive ? sensitiveValue(parameter.from!, context) : parameter.value ?? '';
    const current = live.find((p) => p.key === parameter.key);
    if (current === undefined) await options.api.createPolicySetParameter(setId, { key: parameter.key, value, sensitive: parameter.sensitive });
    else if (parameter.sensitive || current.sensitive || current.value !== value) {
      await options.api.updatePolicySetParameter(setId, current.id, { value, sensitive: parameter.sensitive });
    }
  }
  for (const gone of live.filter((p) => !declared.some((d) => d.key === p.key))) await options.api.deletePolicySetParameter(setId, gone.id);
}
