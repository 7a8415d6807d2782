import type { PolicyKind } from '../model.js';
import type { SourceProblem } from '../errors.js';
import type { DeclaredPolicy } from './types.js';
import { turnTaker } from './turns.js';
import type { DeclaredCache } from './declared-cache.js';
import { byName, isValidName, NAME_RULE } from './resource-names.js';
import { splitPath } from './split-path.js';
import { defaultPolicySettings, readPolicySettings } from './policy-settings.js';
import { readCodeFile, readYamlText } from './read-code.js';
import { createImportScan, unresolvedImports, type FileImports, type UnresolvedImport } from './imports.js';
import type { FoundFile } from './walk.js';

/** `.sentinel` is the vendor's name for the native kind's files: the same kind as `.native`. */
const KIND_BY_EXT: Readonly<Record<string, PolicyKind>> = { '.native': 'native', '.sentinel': 'native', '.rego': 'opa' };

/** Policies read between two turns of the event loop. */
const READ_TURN = 200;

interface PolicyFiles {
  name: string;
  kind: PolicyKind;
  code: FoundFile;
  settings: FoundFile | null;
}

interface PolicyRead {
  policy: DeclaredPolicy | null;
  problems: SourceProblem[];
  warnings: string[];
  imports: FileImports | null;
}

/** Builds the declared policies from the files found under `policies/`, collecting every problem. */
export async function readPolicies(
  files: readonly FoundFile[],
  context: { realRoot: string; cache: DeclaredCache; signal?: AbortSignal },
): Promise<{ policies: DeclaredPolicy[]; problems: SourceProblem[]; warnings: string[]; unresolvedImports: UnresolvedImport[] }> {
  const { codeFiles, problems } = pairFiles(files);
  problems.push(...duplicateNames(codeFiles));
  const policies: DeclaredPolicy[] = [];
  const warnings: string[] = [];
  const imports: FileImports[] = [];
  const turn = turnTaker(READ_TURN, context.signal);
  for (const entry of codeFiles) {
    await turn();
    const stamp = `${entry.kind}|${entry.code.stamp}|${entry.settings?.rel ?? ''}|${entry.settings?.stamp ?? ''}`;
    const result = context.cache.remember(`policy:${entry.code.rel}`, stamp, () => readPolicy(entry, context.realRoot));
    problems.push(...result.problems);
    warnings.push(...result.warnings);
    if (result.imports !== null) imports.push(result.imports);
    if (result.policy !== null) policies.push(result.policy);
  }
  return { policies: policies.sort(byName), problems, warnings, unresolvedImports: unresolvedImports(imports) };
}

/** Pairs each code file with the settings file of the same stem in the same folder. */
function pairFiles(files: readonly FoundFile[]): { codeFiles: PolicyFiles[]; problems: SourceProblem[] } {
  const settingsByStem = new Map<string, FoundFile>();
  for (const file of files) {
    const { folder, stem, ext } = splitPath(file.rel);
    if (ext === '.yaml') settingsByStem.set(`${folder}/${stem}`, file);
  }
  const codeFiles: PolicyFiles[] = [];
  const problems: SourceProblem[] = [];
  const paired = new Set<string>();
  for (const file of files) {
    const { folder, stem, ext } = splitPath(file.rel);
    const kind = KIND_BY_EXT[ext];
    if (kind === undefined) continue;
    const key = `${folder}/${stem}`;
    paired.add(key);
    if (!isValidName(stem)) {
      problems.push({ file: file.rel, message: `"${stem}" is not a valid policy name; ${NAME_RULE} (rename the file)` });
      continue;
    }
    codeFiles.push({ name: stem, kind, code: file, settings: settingsByStem.get(key) ?? null });
  }
  for (const [key, file] of settingsByStem) {
    if (paired.has(key)) continue;
    const stem = splitPath(file.rel).stem;
    problems.push({ file: file.rel, message: `settings file without policy code: expected ${stem}.native, ${stem}.sentinel or ${stem}.rego in the same folder` });
  }
  return { codeFiles, problems };
}

function duplicateNames(codeFiles: readonly PolicyFiles[]): SourceProblem[] {
  // The service may not tell names apart by case, so `Foo` and `foo` are one name.
  const filesByName = new Map<string, { name: string; paths: string[] }>();
  for (const { name, code } of codeFiles) {
    const same = filesByName.get(name.toLowerCase());
    if (same === undefined) filesByName.set(name.toLowerCase(), { name, paths: [code.rel] });
    else same.paths.push(code.rel);
  }
  const problems: SourceProblem[] = [];
  for (const { name, paths } of filesByName.values()) {
    if (paths.length < 2) continue;
    const message =
      `policy name "${name}" is used by ${paths.length} files (${paths.join(', ')}); a name must be unique across kinds and ` +
      'folders, and names that differ only in case count as the same';
    problems.push({ file: paths[0] as string, message });
  }
  return problems;
}

function readPolicy(entry: PolicyFiles, realRoot: string): PolicyRead {
  const scan = createImportScan(entry.kind);
  const code = readCodeFile(entry.code, realRoot, undefined, (chunk) => scan.update(chunk));
  const imports: FileImports | null = 'problem' in code ? null : { file: entry.code.rel, kind: entry.kind, ...scan.finish() };
  const problems: SourceProblem[] = [];
  const warnings: string[] = [];
  if ('problem' in code) problems.push(code.problem);
  let settings = defaultPolicySettings();
  if (entry.settings !== null) {
    const read = readYamlText(entry.settings, realRoot);
    if ('problem' in read) problems.push(read.problem);
    else {
      const parsed = readPolicySettings(entry.kind, entry.settings.rel, read.text);
      problems.push(...parsed.problems);
      settings = parsed.settings;
    }
  }
  if (entry.kind === 'opa' && entry.settings === null) {
    const message = `an opa policy needs a settings file ${entry.name}.yaml beside it with its query (e.g. query: data.terraform.example.deny)`;
    problems.push({ file: entry.code.rel, message });
  }
  if ('empty' in code && code.empty) warnings.push(`${entry.code.rel}: is empty; the policy is declared with no code`);
  if (problems.length > 0 || !('codeDigest' in code)) return { policy: null, problems, warnings, imports };
  const policy: DeclaredPolicy = {
    name: entry.name,
    kind: entry.kind,
    file: entry.code.rel,
    settingsFile: entry.settings?.rel ?? null,
    codeSource: code.source,
    codeDigest: code.codeDigest,
    code: null,
    codeLines: code.codeLines,
    ...settings,
  };
  return { policy, problems, warnings, imports };
}
