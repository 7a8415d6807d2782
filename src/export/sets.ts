/**
 * The policy sets of an export: each set's settings as `policy-sets/<name>.yaml`, its scope by name, its parameters
 * (a sensitive one as a reference the operator allows and fills), its members through the policies' `policy-sets:`
 * lists. A versioned set's files cannot be read back from the service: its settings go beside where its folder
 * belongs (`policy-sets/<name>/policy-set.yaml`), and the summary says to vendor the folder. Pure but for the reads
 * it is given.
 */
import type { PolicySet, PolicySetParameter } from '../api/types.js';
import { isValidName } from '../declared/index.js';
import { stripMarker } from '../plan/marker.js';
import { yamlBytes, type ExportFile } from './files.js';
import { byCodeUnit } from '../order.js';

/** Names of the organization's workspaces and projects by id, for a scope written by name. */
export interface ScopeNames {
  workspaces: ReadonlyMap<string, string>;
  projects: ReadonlyMap<string, string>;
}

/** A sensitive parameter written as `{env: NAME}`: the operator allows NAME (`--parameter-env`) and sets it. */
export interface SensitiveReference {
  set: string;
  key: string;
  env: string;
}

export interface SetExport {
  files: ExportFile[];
  /** Whether its content comes in versions: the folder itself must be vendored from where it came. */
  versioned: boolean;
  sensitive: SensitiveReference[];
}

/** Why a set cannot be exported, or null. */
export function setRefusal(set: PolicySet): string | null {
  if (set.foreignKind !== null) return `kind ${set.foreignKind || '(none)'} is not one this tool manages`;
  if (!isValidName(set.name)) return 'the name is not a valid file name here (letters, digits, - and _)';
  return null;
}

/** Whether exporting `sets` needs the workspaces list, the projects list. */
export function scopeListsNeeded(sets: readonly PolicySet[]): { workspaces: boolean; projects: boolean } {
  return {
    workspaces: sets.some((s) => s.workspaceIds.length + s.workspaceExclusionIds.length > 0),
    projects: sets.some((s) => s.projectIds.length + s.projectExclusionIds.length > 0),
  };
}

/** The files of one set, with the references its sensitive parameters became. `parameters` is null for a set that takes none (opa). */
export function setFiles(set: PolicySet, parameters: readonly PolicySetParameter[] | null, names: ScopeNames): SetExport {
  const settings: Record<string, unknown> = {};
  if (!set.versioned && set.kind === 'opa') settings['kind'] = 'opa';
  const description = stripMarker(set.description);
  if (description !== null) settings['description'] = description;
  if (set.global) settings['global'] = true;
  if (set.agentEnabled) settings['agent-enabled'] = true;
  // A native set keeps `overridable` only while agent-enabled; the declared repo refuses it otherwise.
  if (set.overridable !== null && (set.kind === 'opa' || set.agentEnabled)) settings['overridable'] = set.overridable;
  if (set.policyToolVersion !== null && set.agentEnabled) settings['policy-tool-version'] = set.policyToolVersion;
  const byName = (ids: readonly string[], known: ReadonlyMap<string, string>) => ids.map((id) => known.get(id) ?? id).sort();
  const scope: Array<[string, readonly string[], ReadonlyMap<string, string>]> = [
    ['workspaces', set.workspaceIds, names.workspaces],
    ['projects', set.projectIds, names.projects],
    ['workspace-exclusions', set.workspaceExclusionIds, names.workspaces],
    ['project-exclusions', set.projectExclusionIds, names.projects],
  ];
  for (const [key, ids, known] of scope) if (ids.length > 0) settings[key] = byName(ids, known);
  const tags = exportedTags(set);
  if (tags !== null) settings['tags'] = tags;
  const sensitive: SensitiveReference[] = [];
  if (parameters !== null && parameters.length > 0) {
    const values: Record<string, unknown> = {};
    for (const parameter of [...parameters].sort((a, b) => byCodeUnit(a.key, b.key))) {
      if (!parameter.sensitive) {
        values[parameter.key] = parameter.value;
        continue;
      }
      const env = referenceName(set.name, parameter.key);
      values[parameter.key] = { env };
      sensitive.push({ set: set.name, key: parameter.key, env });
    }
    settings['parameters'] = values;
  }
  const file = set.versioned ? `policy-sets/${set.name}/policy-set.yaml` : `policy-sets/${set.name}.yaml`;
  // An empty YAML set file still declares the set: it is written even with nothing to say.
  const files = !set.versioned || Object.keys(settings).length > 0 ? [{ path: file, bytes: yamlBytes(settings) }] : [];
  return { files, versioned: set.versioned, sensitive };
}

/** `POLICY_SET_<SET>_<KEY>` in capitals, every other character `_`: the variable a sensitive value is read from. */
export function referenceName(set: string, key: string): string {
  return `POLICY_SET_${set}_${key}`.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
}

/** A set's tag selectors as `tags:` writes them (`key:value`, or a key alone), with the match where it has inclusions. */
function exportedTags(set: PolicySet): Record<string, unknown> | null {
  if (set.tagSelectors.length === 0) return null;
  const written = (exclude: boolean) => set.tagSelectors.filter((s) => s.exclude === exclude).map((s) => (s.value === null ? s.key : `${s.key}:${s.value}`)).sort(byCodeUnit);
  const include = written(false);
  const exclude = written(true);
  return { ...(include.length > 0 ? { include, match: set.tagMatch ?? 'any' } : {}), ...(exclude.length > 0 ? { exclude } : {}) };
}
