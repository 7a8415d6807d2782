/**
 * The files of a declared repo that say what the live organization holds: pure, so that exporting twice writes the
 * same bytes. A setting at its default is left out of the settings file, and a settings file with nothing to say is
 * not written.
 */
import { stringify, parse } from 'yaml';
import type { AgentPool, Policy } from '../api/types.js';
import type { NativeKindName } from '../model.js';
import { stripMarker } from '../plan/marker.js';

/** The folders an export writes into, each checked to be a real folder inside the export's folder. */
export const EXPORT_FOLDERS: readonly string[] = ['policies', 'agent-pools', 'policy-sets'];

/** One file to write: its path relative to the repo root, with `/` separators, and its exact bytes. */
export interface ExportFile {
  path: string;
  bytes: Uint8Array;
}

/**
 * The code file, byte for byte as stored, and the settings file when any setting differs from its default. Its sets
 * are named by name where the export writes the set (`setNames`, by id), else by id.
 */
export function policyFiles(policy: Policy, code: Uint8Array, nativeKind: NativeKindName, setNames: ReadonlyMap<string, string> = new Map()): ExportFile[] {
  const ext = policy.kind === 'opa' ? 'rego' : nativeKind;
  const files: ExportFile[] = [{ path: `policies/${policy.name}.${ext}`, bytes: code }];
  const settings: Record<string, unknown> = {};
  const description = stripMarker(policy.description);
  if (description !== null) settings.description = description;
  if (policy.enforcementLevel !== 'advisory') settings['enforcement-level'] = policy.enforcementLevel;
  if (policy.kind === 'opa' && policy.query !== null) settings.query = policy.query;
  if (policy.policySetIds.length > 0) settings['policy-sets'] = policy.policySetIds.map((id) => setNames.get(id) ?? id).sort();
  if (Object.keys(settings).length > 0) files.push({ path: `policies/${policy.name}.yaml`, bytes: yamlBytes(settings) });
  return files;
}

/**
 * `agent-pools/<name>.yaml` with the scope and the allowed workspaces, the projects lists where the pool has any (each
 * then managed exactly), and its tokens' descriptions where it has any: declared without `deliver-to`, each is kept
 * as it is, and none is made or rotated until the operator gives one.
 */
export function poolFile(pool: AgentPool, tokens: ReadonlyArray<{ description: string }> = []): ExportFile {
  const settings: Record<string, unknown> = {
    'organization-scoped': pool.organizationScoped,
    'allowed-workspaces': [...pool.allowedWorkspaceIds].sort(),
  };
  // The hosted service's other access lists, where the pool has any (a server without them sends none).
  if (pool.allowedProjectIds.length > 0) settings['allowed-projects'] = [...pool.allowedProjectIds].sort();
  if (pool.excludedWorkspaceIds.length > 0) settings['excluded-workspaces'] = [...pool.excludedWorkspaceIds].sort();
  const descriptions = [...new Set(tokens.map((t) => t.description).filter((d) => d !== ''))].sort();
  if (descriptions.length > 0) settings.tokens = descriptions.map((description) => ({ description }));
  return { path: `agent-pools/${pool.name}.yaml`, bytes: yamlBytes(settings) };
}

/** YAML that reads back as exactly `value`: plain style where that holds, double-quoted strings where it does not. */
export function yamlBytes(value: Record<string, unknown>): Uint8Array {
  const plain = stringify(value, { lineWidth: 0 });
  if (sameValue(parse(plain), value)) return Buffer.from(plain, 'utf8');
  return Buffer.from(stringify(value, { lineWidth: 0, defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' }), 'utf8');
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
