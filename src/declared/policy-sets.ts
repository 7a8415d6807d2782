import path from 'node:path';
import type { SourceProblem } from '../errors.js';
import type { KeyPath } from '../yaml/index.js';
import { parseTag, type PolicyKind, type RolloutSpec, type TagSelector } from '../model.js';
import { readYamlText } from './read-code.js';
import { byName, isValidName, NAME_RULE } from './resource-names.js';
import { SET_CONFIG_FILES } from './policy-set-config.js';
import { readSetContent } from './policy-set-content.js';
import { SET_SETTINGS_FILE } from './policy-set-files.js';
import { listLines, readSettingsFile, withFile } from './settings-file.js';
import { readMemberEnforcement, readRollout, type RawRollout } from './policy-settings.js';
import type { SensitiveContext } from './sensitive-values.js';
import { readParameters } from './policy-set-parameters.js';
import type { DeclaredPolicySet, EntryLines, SetContent, SetParameter, SetTags } from './types.js';
import type { FoundFile } from './walk.js';

export { SET_SETTINGS_FILE } from './policy-set-files.js';
/** Sets declared in YAML: `policy-sets/<name>.yaml`. */
export const YAML_SET_FILE = /^policy-sets\/[^/]+\.yaml$/;

/** The folders (relative to the root) that hold a set's config file; a folder inside another set's is a problem. */
export function setFolders(files: readonly FoundFile[]): { folders: string[]; problems: SourceProblem[] } {
  const all = [...new Set(files.filter((f) => path.posix.basename(f.rel) in SET_CONFIG_FILES).map((f) => path.posix.dirname(f.rel)))].sort();
  const folders: string[] = [];
  const problems: SourceProblem[] = [];
  for (const folder of all) {
    const outer = folders.find((f) => folder.startsWith(`${f}/`));
    if (outer === undefined) folders.push(folder);
    else problems.push({ file: folder, message: `holds a policy set's config file inside the policy set of ${outer}; sets cannot be nested` });
  }
  for (const folder of folders) {
    const configs = files.filter((f) => path.posix.dirname(f.rel) === folder && path.posix.basename(f.rel) in SET_CONFIG_FILES);
    if (configs.length > 1) problems.push({ file: folder, message: `holds ${configs.map((f) => path.posix.basename(f.rel)).join(' and ')}; a policy set has one config file` });
  }
  return { folders, problems };
}

/** Whether `rel` is inside one of `folders`. */
export function inFolder(rel: string, folders: readonly string[]): boolean {
  return folders.some((folder) => rel.startsWith(`${folder}/`));
}

interface SetFiles {
  folder: string;
  config: FoundFile;
  settings: FoundFile | null;
  files: FoundFile[];
}

/** Reads every policy set: versioned ones from `folders` (their own files among `files`, as `ownSetFiles` gives them), the others from their YAML files. */
export async function readPolicySets(
  folders: readonly string[], files: readonly FoundFile[], yamlFiles: readonly FoundFile[], realRoot: string, context: SensitiveContext,
): Promise<{ sets: DeclaredPolicySet[]; problems: SourceProblem[] }> {
  const sets: DeclaredPolicySet[] = [];
  const problems: SourceProblem[] = [];
  for (const folder of folders) {
    const inside = files.filter((f) => f.rel.startsWith(`${folder}/`));
    const config = inside.find((f) => path.posix.dirname(f.rel) === folder && path.posix.basename(f.rel) in SET_CONFIG_FILES);
    if (config === undefined) {
      problems.push({ file: folder, message: 'its config file is not one of the set\'s own files (a symbolic link out of the folder, or to a path .syncignore or the built-in rules leave out)' });
      continue;
    }
    const settings = inside.find((f) => f.rel === `${folder}/${SET_SETTINGS_FILE}`) ?? null;
    const read = await readVersionedSet({ folder, config, settings, files: inside.filter((f) => f !== settings) }, realRoot, context);
    problems.push(...read.problems);
    if (read.set !== null) sets.push(read.set);
  }
  for (const file of yamlFiles) {
    const read = readYamlSet(file, realRoot, context);
    problems.push(...read.problems);
    if (read.set !== null) sets.push(read.set);
  }
  problems.push(...duplicateSetNames(sets));
  return { sets: sets.sort(byName), problems };
}

async function readVersionedSet(entry: SetFiles, realRoot: string, context: SensitiveContext): Promise<{ set: DeclaredPolicySet | null; problems: SourceProblem[] }> {
  const kind = SET_CONFIG_FILES[path.posix.basename(entry.config.rel)]!;
  const settings = entry.settings === null ? NO_SETTINGS : readSettings(entry.settings, realRoot, kind);
  const problems = [...settings.problems];
  if (settings.values['kind'] !== undefined) problems.push({ file: entry.settings!.rel, message: `kind is not allowed here: a versioned set's kind comes from its config file (${path.posix.basename(entry.config.rel)})` });
  if (settings.values['enforcement-level'] !== undefined) {
    problems.push(withFile(entry.settings!.rel, settings.lineOf(['enforcement-level']), `enforcement-level is not allowed here: a versioned set's levels are its policies' enforcement_level in ${path.posix.basename(entry.config.rel)}`));
  }
  const rollout = versionedRollout(settings.values['rollout'], kind);
  if (typeof rollout === 'string') problems.push(withFile(entry.settings!.rel, settings.lineOf(['rollout']), rollout));
  const read = await readSetContent(entry, realRoot);
  problems.push(...read.problems);
  if (problems.length > 0 || read.content === null) return { set: null, problems };
  const where = {
    file: entry.settings?.rel ?? entry.folder, settingsFile: entry.settings?.rel ?? null, folder: entry.folder, defaultName: path.posix.basename(entry.folder),
  };
  const finished = finishSet(where, kind, settings, read.content, context);
  return finished.set === null || rollout === null ? finished : { ...finished, set: { ...finished.set, rollout: rollout as RolloutSpec } };
}

/**
 * A versioned set's `rollout:` (policy-set.yaml), for each policy its config file raises to a level stricter than its
 * start: checked as a policy's, its start below the kind's strictest level; a string says what is wrong; null: none.
 */
function versionedRollout(raw: unknown, kind: PolicyKind): RolloutSpec | string | null {
  if (raw === undefined) return null;
  return readRollout(raw as RawRollout, kind, kind === 'opa' ? 'mandatory' : 'hard-mandatory', 'versioned policy set');
}

function readYamlSet(file: FoundFile, realRoot: string, context: SensitiveContext): { set: DeclaredPolicySet | null; problems: SourceProblem[] } {
  const settings = readSettings(file, realRoot);
  if (settings.problems.length > 0) return { set: null, problems: settings.problems };
  const kind: PolicyKind = settings.values['kind'] === 'opa' ? 'opa' : 'native';
  const members = readMemberEnforcement(settings.values, kind, file.rel, (key) => settings.lineOf([key]));
  if (members.problems.length > 0) return { set: null, problems: members.problems };
  const where = { file: file.rel, settingsFile: file.rel, folder: null, defaultName: path.posix.basename(file.rel, '.yaml') };
  const read = finishSet(where, kind, settings, null, context);
  return read.set === null || members.members === null ? read : { ...read, set: { ...read.set, members: members.members } };
}

/** Where a set is declared: the file its problems name, its settings file, the name it has unless it names one. */
interface SetPlace {
  file: string;
  settingsFile: string | null;
  /** A versioned set's folder, which an invalid name's problem names; null for a YAML set. */
  folder: string | null;
  defaultName: string;
}

/** The end both kinds of set share: the name checked, the parameters read (native sets only), the set made. */
function finishSet(where: SetPlace, kind: PolicyKind, settings: Settings, content: SetContent | null, context: SensitiveContext): { set: DeclaredPolicySet | null; problems: SourceProblem[] } {
  const name = typeof settings.values['name'] === 'string' ? settings.values['name'] : where.defaultName;
  if (!isValidName(name)) {
    const hint = where.folder === null ? '' : ` (name it in ${SET_SETTINGS_FILE})`;
    return { set: null, problems: [{ file: where.folder ?? where.file, message: `"${name}" is not a valid policy set name; ${NAME_RULE}${hint}` }] };
  }
  const parameters = readParameters(settings.values['parameters'], where.file, (key) => settings.lineOf(['parameters', key]), context);
  if (parameters.parameters !== null && kind === 'opa') parameters.problems.push({ file: where.file, message: 'parameters are for the native kind only; an opa set takes none' });
  if (parameters.problems.length > 0) return { set: null, problems: parameters.problems };
  const set = { ...setSettings(name, kind, where.settingsFile, settings.values, parameters.parameters), content };
  return { set: settings.lines === undefined ? set : { ...set, lines: settings.lines }, problems: [] };
}

interface Settings {
  values: Record<string, unknown>;
  problems: SourceProblem[];
  /** The line of a key path in the settings file, where YAML gives one. */
  lineOf: (path: KeyPath) => number | undefined;
  /** The line of each entry of the scope lists. */
  lines?: EntryLines;
}

const NO_SETTINGS: Settings = { values: {}, problems: [], lineOf: () => undefined };

function readSettings(file: FoundFile, realRoot: string, configKind?: PolicyKind): Settings {
  const text = readYamlText(file, realRoot);
  if ('problem' in text) return { ...NO_SETTINGS, problems: [text.problem] };
  const parsed = readSettingsFile(file.rel, text.text, 'policy-set');
  const values = parsed.settings ?? {};
  const problems = [...parsed.problems];
  const lineOf = (key: KeyPath) => parsed.doc?.lineOfKey(key);
  const hasScope = ['workspaces', 'projects'].some((key) => Array.isArray(values[key]) && (values[key] as unknown[]).length > 0);
  if (values['global'] === true && hasScope) {
    problems.push(withFile(file.rel, lineOf(['global']), 'global: true is not allowed with workspaces or projects; the service scopes a set to them only when it is not global'));
  }
  problems.push(...tagScopeProblems(values, (key) => withFile(file.rel, lineOf(key), '')));
  const kind = configKind ?? (values['kind'] === 'opa' ? 'opa' : 'native');
  for (const key of agentOnlySettings(values, kind)) {
    problems.push(withFile(file.rel, lineOf([key]), `${key} needs agent-enabled: true on ${kind === 'opa' ? 'an opa' : 'a native (Sentinel)'} set: the service keeps ${key} only on an agent-enabled one, so it would come back empty and every pass would update the set again`));
  }
  return { values, problems, lineOf, lines: listLines(parsed.doc, SCOPE_KEYS) };
}

const SCOPE_KEYS = ['workspaces', 'projects', 'workspace-exclusions', 'project-exclusions'];

/**
 * The settings declared that the service keeps only while a set is agent-enabled, on a set not declared
 * `agent-enabled: true`: `policy-tool-version`, and for the native kind `overridable` (an opa set keeps it either
 * way). docs/api-behaviour.md, Policy sets.
 */
function agentOnlySettings(values: Record<string, unknown>, kind: PolicyKind): string[] {
  if (values['agent-enabled'] === true) return [];
  return (kind === 'opa' ? ['policy-tool-version'] : ['overridable', 'policy-tool-version']).filter((key) => values[key] !== undefined && values[key] !== null);
}

function setSettings(name: string, kind: PolicyKind, settingsFile: string | null, values: Record<string, unknown>, parameters: SetParameter[] | null): Omit<DeclaredPolicySet, 'content'> {
  const flag = (key: string) => (typeof values[key] === 'boolean' ? values[key] : null);
  const list = (key: string) => (Array.isArray(values[key]) ? (values[key] as string[]).map(String) : null);
  return {
    name, kind, settingsFile,
    description: typeof values['description'] === 'string' ? values['description'] : null,
    global: values['global'] === true,
    overridable: flag('overridable'),
    agentEnabled: flag('agent-enabled'),
    policyToolVersion: typeof values['policy-tool-version'] === 'string' ? values['policy-tool-version'] : null,
    scope: { workspaces: list('workspaces'), projects: list('projects'), workspaceExclusions: list('workspace-exclusions'), projectExclusions: list('project-exclusions') },
    ...setTags(values['tags']),
    parameters,
    sensitiveDigest: null,
  };
}

/** `tags:` as selectors: each include and exclude tag, `key:value` or a key alone. Absent: not managed. */
function setTags(value: unknown): { tags?: SetTags } {
  if (typeof value !== 'object' || value === null) return {};
  const raw = value as { include?: unknown; exclude?: unknown; match?: unknown };
  const tags = (list: unknown, exclude: boolean): TagSelector[] => (Array.isArray(list) ? list.map((t) => ({ ...parseTag(String(t)), exclude })) : []);
  return { tags: { selectors: [...tags(raw.include, false), ...tags(raw.exclude, true)], match: raw.match === 'all' ? 'all' : 'any' } };
}

/**
 * The mixes the service refuses: tag-based scoping beside explicit workspaces or projects (the vendor's provider,
 * `tfe_tag_policy_set`: "mutually exclusive on a policy set"), and inclusion tags on a global set, which is on every
 * workspace already. Exclusion tags alone go with a global set (go-tfe's `TestPolicySetsAddTagSelectors`).
 */
function tagScopeProblems(values: Record<string, unknown>, at: (key: KeyPath) => SourceProblem): SourceProblem[] {
  const tags = values['tags'] as { include?: unknown[] } | undefined;
  if (tags === undefined || tags === null || !Array.isArray(tags.include) || tags.include.length === 0) return [];
  const problems: SourceProblem[] = [];
  const said = (key: KeyPath, message: string) => problems.push({ ...at(key), message });
  for (const key of ['workspaces', 'projects']) {
    if (Array.isArray(values[key]) && (values[key] as unknown[]).length > 0) {
      said([key], `tags.include is not allowed with ${key}: the service scopes a set by tags or by workspaces and projects, never both (remove one)`);
    }
  }
  if (values['global'] === true) said(['global'], 'global: true is not allowed with tags.include; a global set is on every workspace (tags.exclude alone may go with it)');
  return problems;
}

function duplicateSetNames(sets: readonly DeclaredPolicySet[]): SourceProblem[] {
  const seen = new Map<string, DeclaredPolicySet>();
  const problems: SourceProblem[] = [];
  for (const set of sets) {
    const first = seen.get(set.name.toLowerCase());
    const where = (s: DeclaredPolicySet) => s.content?.folder ?? s.settingsFile ?? s.name;
    if (first === undefined) seen.set(set.name.toLowerCase(), set);
    else problems.push({ file: where(set), message: `policy set name "${set.name}" is also declared by ${where(first)}; a set's name must be unique` });
  }
  return problems;
}
