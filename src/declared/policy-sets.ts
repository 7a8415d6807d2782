import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { learnSecrets } from '../redact.js';
import type { SourceProblem } from '../errors.js';
import type { PolicyKind } from '../model.js';
import { MAX_CODE_BYTES } from '../model.js';
import { readSourceFile, decodeText } from './read-file.js';
import { readYamlText } from './read-code.js';
import { byName, isValidName, NAME_RULE } from './resource-names.js';
import { packSet, type ArchiveFile } from './set-archive.js';
import { readSetConfig, SET_CONFIG_FILES } from './set-config.js';
import { listLines, readSettingsFile, withFile } from './settings-file.js';
import type { DeclaredPolicySet, EntryLines, SetParameter } from './types.js';
import type { FoundFile } from './walk.js';

/** The settings file beside a versioned set's config file; never packed. */
export const SET_SETTINGS_FILE = 'policy-set.yaml';
/** Sets declared in YAML: `policy-sets/<name>.yaml`. */
export const YAML_SET_FILE = /^policy-sets\/[^/]+\.yaml$/;
/**
 * The largest set archive (tar.gz) this tool uploads, and the most its files may hold before packing. The service
 * documents no limit; these keep a mistaken folder (a vendored tree, build output) from being packed and sent.
 */
export const MAX_SET_ARCHIVE_BYTES = 20 * 1024 * 1024;
export const MAX_SET_FILES_BYTES = 100 * 1024 * 1024;

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

/** Reads every policy set: versioned ones from `folders` (their files among `files`), the others from their YAML files. */
export async function readPolicySets(
  folders: readonly string[], files: readonly FoundFile[], yamlFiles: readonly FoundFile[], realRoot: string, env: NodeJS.ProcessEnv,
): Promise<{ sets: DeclaredPolicySet[]; problems: SourceProblem[] }> {
  const sets: DeclaredPolicySet[] = [];
  const problems: SourceProblem[] = [];
  for (const folder of folders) {
    const inside = files.filter((f) => f.rel.startsWith(`${folder}/`));
    const config = inside.find((f) => path.posix.dirname(f.rel) === folder && path.posix.basename(f.rel) in SET_CONFIG_FILES)!;
    const settings = inside.find((f) => f.rel === `${folder}/${SET_SETTINGS_FILE}`) ?? null;
    const read = await readVersionedSet({ folder, config, settings, files: inside.filter((f) => f !== settings) }, realRoot, env);
    problems.push(...read.problems);
    if (read.set !== null) sets.push(read.set);
  }
  for (const file of yamlFiles) {
    const read = readYamlSet(file, realRoot, env);
    problems.push(...read.problems);
    if (read.set !== null) sets.push(read.set);
  }
  problems.push(...duplicateSetNames(sets));
  return { sets: sets.sort(byName), problems };
}

async function readVersionedSet(entry: SetFiles, realRoot: string, env: NodeJS.ProcessEnv): Promise<{ set: DeclaredPolicySet | null; problems: SourceProblem[] }> {
  const kind = SET_CONFIG_FILES[path.posix.basename(entry.config.rel)]!;
  const settings = entry.settings === null ? { values: {}, problems: [] } : readSettings(entry.settings, realRoot, kind);
  const problems = [...settings.problems];
  if (settings.values['kind'] !== undefined) problems.push({ file: entry.settings!.rel, message: `kind is not allowed here: a versioned set's kind comes from its config file (${path.posix.basename(entry.config.rel)})` });
  const total = entry.files.reduce((sum, f) => sum + f.size, 0);
  if (total > MAX_SET_FILES_BYTES) {
    problems.push({ file: entry.folder, message: `holds ${total} bytes of files; a policy set's folder may hold at most ${MAX_SET_FILES_BYTES} bytes (100 MiB). Leave files out with .syncignore` });
    return { set: null, problems };
  }
  const archiveFiles: ArchiveFile[] = [];
  for (const file of entry.files) {
    const read = readSourceFile(realRoot, file.rel, file.abs, MAX_CODE_BYTES, file.real);
    if ('problem' in read) problems.push(read.problem);
    else archiveFiles.push({ path: file.rel.slice(entry.folder.length + 1), bytes: read.bytes });
  }
  const configBytes = archiveFiles.find((f) => `${entry.folder}/${f.path}` === entry.config.rel)?.bytes;
  const text = configBytes === undefined ? null : decodeText(entry.config.rel, configBytes);
  if (text === null || 'problem' in text) return { set: null, problems: text === null ? problems : [...problems, text.problem] };
  const byPath = new Map(archiveFiles.map((f) => [f.path, f.bytes]));
  const checked = await readSetConfig(entry.config.rel, text.text, new Set(byPath.keys()), (file) => { const bytes = byPath.get(file); return bytes === undefined ? null : Buffer.from(bytes).toString('utf8'); });
  problems.push(...checked.problems);
  if (problems.length > 0) return { set: null, problems };
  const archive = await packSet(archiveFiles);
  if (archive.gzip.length > MAX_SET_ARCHIVE_BYTES) {
    problems.push({ file: entry.folder, message: `packs to ${archive.gzip.length} bytes; a policy set's archive may be at most ${MAX_SET_ARCHIVE_BYTES} bytes (20 MiB)` });
    return { set: null, problems };
  }
  const name = typeof settings.values['name'] === 'string' ? settings.values['name'] : path.posix.basename(entry.folder);
  if (!isValidName(name)) return { set: null, problems: [{ file: entry.folder, message: `"${name}" is not a valid policy set name; ${NAME_RULE} (name it in ${SET_SETTINGS_FILE})` }] };
  const content = {
    folder: entry.folder, root: realRoot, configFile: path.posix.basename(entry.config.rel), digest: archive.digest, bytes: archive.gzip.length,
    files: archive.files, policies: checked.config.policies.length, modules: checked.config.modules.length,
    levels: checked.config.policies.map((p) => ({ name: p.name, level: p.level ?? 'advisory' })),
  };
  const parameters = readParameters(settings.values['parameters'], entry.settings?.rel ?? entry.folder, realRoot, env);
  if (parameters.parameters !== null && kind === 'opa') parameters.problems.push({ file: entry.settings!.rel, message: 'parameters are for the native kind only; an opa set takes none' });
  if (parameters.problems.length > 0) return { set: null, problems: parameters.problems };
  return { set: { ...setSettings(name, kind, entry.settings?.rel ?? null, settings.values, parameters.parameters), content, ...('lines' in settings && settings.lines !== undefined ? { lines: settings.lines } : {}) }, problems };
}

function readYamlSet(file: FoundFile, realRoot: string, env: NodeJS.ProcessEnv): { set: DeclaredPolicySet | null; problems: SourceProblem[] } {
  const settings = readSettings(file, realRoot);
  if (settings.problems.length > 0) return { set: null, problems: settings.problems };
  const stem = path.posix.basename(file.rel, '.yaml');
  const name = typeof settings.values['name'] === 'string' ? settings.values['name'] : stem;
  if (!isValidName(name)) return { set: null, problems: [{ file: file.rel, message: `"${name}" is not a valid policy set name; ${NAME_RULE}` }] };
  const kind: PolicyKind = settings.values['kind'] === 'opa' ? 'opa' : 'native';
  const parameters = readParameters(settings.values['parameters'], file.rel, realRoot, env);
  if (parameters.parameters !== null && kind === 'opa') parameters.problems.push({ file: file.rel, message: 'parameters are for the native kind only; an opa set takes none' });
  if (parameters.problems.length > 0) return { set: null, problems: parameters.problems };
  return { set: { ...setSettings(name, kind, file.rel, settings.values, parameters.parameters), content: null, ...(settings.lines === undefined ? {} : { lines: settings.lines }) }, problems: [] };
}

function readSettings(file: FoundFile, realRoot: string, configKind?: PolicyKind): { values: Record<string, unknown>; problems: SourceProblem[]; lines?: EntryLines } {
  const text = readYamlText(file, realRoot);
  if ('problem' in text) return { values: {}, problems: [text.problem] };
  const parsed = readSettingsFile(file.rel, text.text, 'policy-set');
  const values = parsed.settings ?? {};
  const problems = [...parsed.problems];
  const hasScope = ['workspaces', 'projects'].some((key) => Array.isArray(values[key]) && (values[key] as unknown[]).length > 0);
  if (values['global'] === true && hasScope) {
    problems.push(withFile(file.rel, parsed.doc?.lineOfKey(['global']), 'global: true is not allowed with workspaces or projects; the service scopes a set to them only when it is not global'));
  }
  const kind = configKind ?? (values['kind'] === 'opa' ? 'opa' : 'native');
  for (const key of agentOnlySettings(values, kind)) {
    problems.push(withFile(file.rel, parsed.doc?.lineOfKey([key]), `${key} needs agent-enabled: true on ${kind === 'opa' ? 'an opa' : 'a native (Sentinel)'} set: the service keeps ${key} only on an agent-enabled one, so it would come back empty and every pass would update the set again`));
  }
  return { values, problems, lines: listLines(parsed.doc, SCOPE_KEYS) };
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
    parameters,
    sensitiveDigest: null,
  };
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

/** The largest file a sensitive parameter's value is read from. */
const MAX_PARAMETER_FILE_BYTES = 65_536;

/**
 * The parameters as declared: a plain `key: value` as text; `{env: NAME}` or `{file: /path}` is a sensitive value,
 * read here (the variable must be set, the file must be outside the repo) and learned by the redactor.
 */
export function readParameters(
  raw: unknown, file: string, realRoot: string, env: NodeJS.ProcessEnv,
): { parameters: SetParameter[] | null; problems: SourceProblem[] } {
  if (raw === undefined || raw === null || typeof raw !== 'object') return { parameters: null, problems: [] };
  const parameters: SetParameter[] = [];
  const problems: SourceProblem[] = [];
  for (const [key, value] of Object.entries(raw as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (value === null || typeof value !== 'object') {
      parameters.push({ key, value: String(value), sensitive: false, from: null });
      continue;
    }
    const ref = value as { env?: string; file?: string };
    const read = ref.env !== undefined ? fromEnv(ref.env, env) : fromFile(ref.file ?? '', realRoot);
    if ('problem' in read) problems.push({ file, message: `parameters.${key}: ${read.problem}` });
    else parameters.push({ key, value: read.value, sensitive: true, from: ref.env !== undefined ? `env:${ref.env}` : `file:${ref.file ?? ''}` });
  }
  learnSecrets(parameters.flatMap((p) => (p.sensitive && p.value !== null ? [p.value] : [])));
  return { parameters, problems };
}

/** A sensitive value read again for its upload, from where the plan says it came (`env:NAME`, `file:/path`). */
export function sensitiveValue(from: string, realRoot: string | null, env: NodeJS.ProcessEnv = process.env): string {
  const read = from.startsWith('env:') ? fromEnv(from.slice(4), env) : fromFile(from.slice(5), realRoot);
  if ('problem' in read) throw new Error(read.problem);
  learnSecrets([read.value]);
  return read.value;
}

function fromEnv(name: string, env: NodeJS.ProcessEnv): { value: string } | { problem: string } {
  const value = env[name];
  return value === undefined || value === '' ? { problem: `the environment variable ${name} is not set` } : { value };
}

function fromFile(file: string, realRoot: string | null): { value: string } | { problem: string } {
  if (!path.isAbsolute(file)) return { problem: `${file} is not an absolute path; a sensitive value's file lives outside the repo` };
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return { problem: `${file} cannot be read` };
  }
  if (realRoot !== null && (real === realRoot || real.startsWith(`${realRoot}${path.sep}`))) return { problem: `${file} is inside the repo; a sensitive value never lives in git` };
  try {
    const bytes = readFileSync(real);
    if (bytes.length > MAX_PARAMETER_FILE_BYTES) return { problem: `${file} holds more than ${MAX_PARAMETER_FILE_BYTES} bytes` };
    return { value: bytes.toString('utf8').replace(/\r?\n$/, '') };
  } catch {
    return { problem: `${file} cannot be read` };
  }
}
