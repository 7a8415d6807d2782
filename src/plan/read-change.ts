/**
 * A saved change read back as the Change it was saved from (types.ts), checked in shape key by key: the same plain
 * data a fresh plan holds, so that the check of a saved plan and `--show` use it as it is. A problem names the key
 * (`live.updatedAt must be a string or null, ...`); the caller names the change. Pure.
 */
import type { CodeSummary } from '../code-content.js';
import type { AgentCleanup } from '../declared/types.js';
import type { AgentStatus, EnforcementLevel, PolicyKind } from '../model.js';
import { below, count, digest, entries, flag, listOf, nullable, oneOf, type Reader, record, ShapeError, text } from './read-shape.js';
import type { CodeRef, LiveAgentRef, LivePolicyRef, LivePoolRef, PolicySpec, PoolSpec } from './refs.js';
import type { AgentChange, Change, ChangeAction, FieldChange, FieldValue, PolicyChange, PoolChange, ResourceType } from './types.js';

export const RESOURCES: readonly ResourceType[] = ['policy', 'agent-pool', 'agent'];
export const ACTIONS: readonly ChangeAction[] = ['create', 'update', 'replace', 'delete'];
const KINDS: readonly PolicyKind[] = ['native', 'opa'];
const LEVELS: readonly EnforcementLevel[] = ['hard-mandatory', 'soft-mandatory', 'advisory', 'mandatory'];
const STATUSES: readonly AgentStatus[] = ['idle', 'busy', 'exited', 'errored', 'unknown'];

const ids = listOf(text);
const optionalText = nullable(text);

/** One change; `at` is '' for a change on its own. Throws a ShapeError. */
export function readChange(value: unknown, at = ''): Change {
  const common = ['resource', 'name', 'id', 'action', 'reason', 'fields'];
  const kind = record(value, at).get('resource');
  const resource = oneOf(RESOURCES)(kind, below(at, 'resource'));
  if (resource === 'policy') {
    const e = entries(value, at, [...common, 'declared', 'live', 'uploadCode', 'adoptMarker']);
    const change: PolicyChange = {
      ...base(e, at), resource, declared: nullable(policySpec)(e.get('declared'), below(at, 'declared')),
      live: nullable(livePolicy)(e.get('live'), below(at, 'live')),
      uploadCode: flag(e.get('uploadCode'), below(at, 'uploadCode')), adoptMarker: flag(e.get('adoptMarker'), below(at, 'adoptMarker')),
    };
    return change;
  }
  if (resource === 'agent-pool') {
    const e = entries(value, at, [...common, 'declared', 'live']);
    const change: PoolChange = {
      ...base(e, at), resource, declared: nullable(poolSpec)(e.get('declared'), below(at, 'declared')),
      live: nullable(livePool)(e.get('live'), below(at, 'live')),
    };
    return change;
  }
  const e = entries(value, at, [...common, 'poolName', 'live']);
  const change: AgentChange = {
    ...base(e, at), resource, action: oneOf(['delete'] as const)(e.get('action'), below(at, 'action')),
    poolName: text(e.get('poolName'), below(at, 'poolName')), live: liveAgent(e.get('live'), below(at, 'live')),
  };
  return change;
}

function base(e: Map<string, unknown>, at: string): { name: string; id: string | null; action: ChangeAction; reason: string; fields: Record<string, FieldChange> } {
  return {
    name: text(e.get('name'), below(at, 'name')),
    id: optionalText(e.get('id'), below(at, 'id')),
    action: oneOf(ACTIONS)(e.get('action'), below(at, 'action')),
    reason: text(e.get('reason'), below(at, 'reason')),
    fields: fieldChanges(e.get('fields'), below(at, 'fields')),
  };
}

/** Each field's before and after; code as its summary (a saved plan never carries code whole). */
function fieldChanges(value: unknown, at: string): Record<string, FieldChange> {
  const fields: Record<string, FieldChange> = {};
  for (const [name, field] of record(value, at)) {
    const where = below(at, name);
    const e = entries(field, where, ['before', 'after']);
    const read = name === 'code' ? nullable(codeSummary) : fieldValue;
    fields[name] = { before: read(e.get('before'), below(where, 'before')), after: read(e.get('after'), below(where, 'after')) };
  }
  return fields;
}

const fieldValue: Reader<FieldValue> = (value, at) => {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (Array.isArray(value)) return ids(value, at);
  throw new ShapeError(at, 'must be a text, a number, true or false, a list of texts or null');
};

const codeSummary: Reader<CodeSummary> = (value, at) => {
  const e = entries(value, at, ['sha256', 'bytes', 'lines']);
  return { sha256: digest(e.get('sha256'), below(at, 'sha256')), bytes: count(e.get('bytes'), below(at, 'bytes')), lines: count(e.get('lines'), below(at, 'lines')) };
};

const codeRef: Reader<CodeRef> = (value, at) => {
  const e = entries(value, at, ['sha256', 'bytes', 'lines', 'file', 'source']);
  const where = below(at, 'source');
  const s = entries(e.get('source'), where, ['root', 'path', 'size', 'fileSha256']);
  return {
    ...codeSummary({ sha256: e.get('sha256'), bytes: e.get('bytes'), lines: e.get('lines') }, at),
    file: text(e.get('file'), below(at, 'file')),
    source: {
      root: text(s.get('root'), below(where, 'root')), path: text(s.get('path'), below(where, 'path')),
      size: count(s.get('size'), below(where, 'size')), fileSha256: digest(s.get('fileSha256'), below(where, 'fileSha256')),
    },
  };
};

const policySpec: Reader<PolicySpec> = (value, at) => {
  const e = entries(value, at, ['kind', 'description', 'enforcementLevel', 'query', 'policySets', 'code']);
  return {
    kind: oneOf(KINDS)(e.get('kind'), below(at, 'kind')),
    description: optionalText(e.get('description'), below(at, 'description')),
    enforcementLevel: oneOf(LEVELS)(e.get('enforcementLevel'), below(at, 'enforcementLevel')),
    query: optionalText(e.get('query'), below(at, 'query')),
    policySets: nullable(ids)(e.get('policySets'), below(at, 'policySets')),
    code: codeRef(e.get('code'), below(at, 'code')),
  };
};

const livePolicy: Reader<LivePolicyRef> = (value, at) => {
  const e = entries(value, at, ['id', 'name', 'kind', 'description', 'query', 'enforcementLevel', 'policySetIds', 'updatedAt', 'codeDigest'], ['policySetCount']);
  const policySetCount = e.get('policySetCount');
  return {
    id: text(e.get('id'), below(at, 'id')),
    name: text(e.get('name'), below(at, 'name')),
    kind: oneOf(KINDS)(e.get('kind'), below(at, 'kind')),
    description: optionalText(e.get('description'), below(at, 'description')),
    query: optionalText(e.get('query'), below(at, 'query')),
    enforcementLevel: oneOf(LEVELS)(e.get('enforcementLevel'), below(at, 'enforcementLevel')),
    policySetIds: ids(e.get('policySetIds'), below(at, 'policySetIds')),
    ...(policySetCount === undefined ? {} : { policySetCount: count(policySetCount, below(at, 'policySetCount')) }),
    updatedAt: optionalText(e.get('updatedAt'), below(at, 'updatedAt')),
    codeDigest: nullable(digest)(e.get('codeDigest'), below(at, 'codeDigest')),
  };
};

const poolSpec: Reader<PoolSpec> = (value, at) => {
  const keys = ['file', 'organizationScoped', 'allowedWorkspaces', 'allowedProjects', 'excludedWorkspaces', 'previousNames', 'agentCleanup'];
  const e = entries(value, at, keys);
  return {
    file: text(e.get('file'), below(at, 'file')),
    organizationScoped: flag(e.get('organizationScoped'), below(at, 'organizationScoped')),
    allowedWorkspaces: nullable(ids)(e.get('allowedWorkspaces'), below(at, 'allowedWorkspaces')),
    allowedProjects: nullable(ids)(e.get('allowedProjects'), below(at, 'allowedProjects')),
    excludedWorkspaces: nullable(ids)(e.get('excludedWorkspaces'), below(at, 'excludedWorkspaces')),
    previousNames: ids(e.get('previousNames'), below(at, 'previousNames')),
    agentCleanup: nullable(agentCleanup)(e.get('agentCleanup'), below(at, 'agentCleanup')),
  };
};

const agentCleanup: Reader<AgentCleanup> = (value, at) => {
  const e = entries(value, at, ['statuses', 'afterMs', 'after']);
  return {
    statuses: listOf(oneOf(STATUSES))(e.get('statuses'), below(at, 'statuses')),
    afterMs: count(e.get('afterMs'), below(at, 'afterMs')),
    after: text(e.get('after'), below(at, 'after')),
  };
};

const livePool: Reader<LivePoolRef> = (value, at) => {
  const e = entries(value, at, ['id', 'name', 'organizationScoped', 'allowedWorkspaceIds', 'allowedProjectIds', 'excludedWorkspaceIds']);
  return {
    id: text(e.get('id'), below(at, 'id')),
    name: text(e.get('name'), below(at, 'name')),
    organizationScoped: flag(e.get('organizationScoped'), below(at, 'organizationScoped')),
    allowedWorkspaceIds: ids(e.get('allowedWorkspaceIds'), below(at, 'allowedWorkspaceIds')),
    allowedProjectIds: ids(e.get('allowedProjectIds'), below(at, 'allowedProjectIds')),
    excludedWorkspaceIds: ids(e.get('excludedWorkspaceIds'), below(at, 'excludedWorkspaceIds')),
  };
};

const liveAgent: Reader<LiveAgentRef> = (value, at) => {
  const e = entries(value, at, ['id', 'status', 'lastPingAt']);
  return {
    id: text(e.get('id'), below(at, 'id')),
    status: text(e.get('status'), below(at, 'status')),
    lastPingAt: optionalText(e.get('lastPingAt'), below(at, 'lastPingAt')),
  };
};
