import type { CreatePolicySetInput, PolicySetVersion, UpdatePolicySetInput } from '../api/types.js';
import { sensitiveValue, setArchiveBody } from '../declared/index.js';
import { withMarker } from '../plan/marker.js';
import type { PolicySetChange } from '../plan/types.js';
import type { ApplyOptions } from './options.js';

/** How long a new version may take to be read by the service before the apply gives up on it. @default 10 minutes */
export const DEFAULT_SET_VERSION_TIMEOUT_MS = 10 * 60_000;
const FIRST_POLL_MS = 200;
const LONGEST_POLL_MS = 5_000;

/**
 * A policy set's create (or replace: delete, then create) and the upload of its content, as one step. The marker is
 * written without a content digest first, and with it once the version is ready: a version that errored leaves the
 * marker without it, so the next plan uploads again.
 */
export async function createPolicySet(change: PolicySetChange, options: ApplyOptions): Promise<void> {
  const declared = change.declared!;
  if (change.action === 'replace' && change.live !== null) await options.api.deletePolicySet(change.live.id);
  const input: CreatePolicySetInput = {
    name: change.name,
    description: describe(change, null, options),
    kind: declared.kind,
    global: declared.global,
    ...(declared.overridable === null ? {} : { overridable: declared.overridable }),
    ...(declared.agentEnabled === null ? {} : { agentEnabled: declared.agentEnabled }),
    ...(declared.policyToolVersion === null ? {} : { policyToolVersion: declared.policyToolVersion }),
    ...(declared.scope.workspaces === null ? {} : { workspaceIds: declared.scope.workspaces }),
    ...(declared.scope.projects === null ? {} : { projectIds: declared.scope.projects }),
    ...(declared.scope.workspaceExclusions === null ? {} : { workspaceExclusionIds: declared.scope.workspaceExclusions }),
    ...(declared.scope.projectExclusions === null ? {} : { projectExclusionIds: declared.scope.projectExclusions }),
  };
  const made = await options.api.createPolicySet(options.organization, input, (found) => found.description === input.description && found.kind === declared.kind);
  await syncParameters(made.id, change, [], options);
  if (declared.content !== null) await uploadContent(made.id, change, options);
  const description = describe(change, declared.content?.digest ?? null, options);
  if (description !== input.description) await options.api.updatePolicySet(made.id, { description });
}

/** The settings that differ, and a new version when the content differs; the marker records the content once it is ready. */
export async function updatePolicySet(change: PolicySetChange, options: ApplyOptions): Promise<void> {
  const declared = change.declared!;
  const id = change.id!;
  if (change.uploadContent) await uploadContent(id, change, options);
  const input: UpdatePolicySetInput = {};
  const digest = declared.content === null ? null : declared.content.digest;
  if (change.fields['parameters'] !== undefined) await syncParameters(id, change, change.live?.parameters ?? [], options);
  const marked = change.fields['parameters'] !== undefined && declared.sensitiveDigest !== null;
  if (change.fields['description'] !== undefined || change.adoptMarker || change.uploadContent || marked) input.description = describe(change, digest, options);
  if (change.fields['global'] !== undefined) input.global = declared.global;
  if (change.fields['overridable'] !== undefined && declared.overridable !== null) input.overridable = declared.overridable;
  if (change.fields['agent-enabled'] !== undefined && declared.agentEnabled !== null) input.agentEnabled = declared.agentEnabled;
  if (change.fields['policy-tool-version'] !== undefined) input.policyToolVersion = declared.policyToolVersion;
  if (Object.keys(input).length > 0) await options.api.updatePolicySet(id, input);
  await moveScope(change, options);
}

const SCOPES = [
  ['workspaces', 'workspaces', 'workspaceIds'],
  ['projects', 'projects', 'projectIds'],
  ['workspace-exclusions', 'workspaceExclusions', 'workspaceExclusionIds'],
  ['project-exclusions', 'projectExclusions', 'projectExclusionIds'],
] as const;

/** Each scope list that differs: the declared ids added first, then the others removed. */
async function moveScope(change: PolicySetChange, options: ApplyOptions): Promise<void> {
  for (const [relationship, key, liveKey] of SCOPES) {
    const declared = change.declared!.scope[key];
    if (change.fields[relationship] === undefined || declared === null) continue;
    const live = change.live!;
    await options.api.addToPolicySet(change.id!, relationship, declared.filter((id) => !live[liveKey].includes(id)));
    await options.api.removeFromPolicySet(change.id!, relationship, live[liveKey].filter((id) => !declared.includes(id)));
  }
}

/**
 * The description as written: under `ownership: marker` with the marker, which records a versioned set's content once
 * ready and the keyed digest of its sensitive parameters.
 */
function describe(change: PolicySetChange, digest: string | null, options: ApplyOptions): string | null {
  const description = change.declared?.description ?? null;
  if (options.ownership !== 'marker') return description;
  return withMarker(description, options.source, digest, change.declared?.sensitiveDigest ?? null);
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

/** A new version: created, its archive uploaded, then read with back-off until ready; errored or too slow is a failure. */
async function uploadContent(setId: string, change: PolicySetChange, options: ApplyOptions): Promise<PolicySetVersion> {
  const archive = await setArchiveBody(change.declared!.content!);
  const version = await options.api.createPolicySetVersion(setId);
  await options.api.uploadPolicySetVersion(version, archive);
  const timeout = options.setVersionTimeoutMs ?? DEFAULT_SET_VERSION_TIMEOUT_MS;
  const started = Date.now();
  for (let wait = FIRST_POLL_MS; ; wait = Math.min(wait * 2, LONGEST_POLL_MS)) {
    const read = await options.api.getPolicySetVersion(version.id);
    if (read.status === 'ready') return read;
    if (read.status === 'errored' || read.status === 'canceled') {
      throw new Error(`version ${read.id} of policy set "${change.name}" ${read.status}: ${read.errorMessage ?? read.error ?? 'the service gave no message'}`);
    }
    if (Date.now() - started + wait > timeout) {
      throw new Error(`version ${read.id} of policy set "${change.name}" is still ${read.status} after ${Math.round(timeout / 1000)} s; the next pass looks again`);
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
