import type { PolicyKind } from '../model.js';
import type { SourceProblem } from '../errors.js';
import type { DeclaredPolicy } from './types.js';
import { mapLimit } from './map-limit.js';
import { byName, isValidName, NAME_RULE } from './resource-names.js';
import { splitPath } from './split-path.js';
import { defaultPolicySettings, readPolicySettings } from './policy-settings.js';
import { readCode, readText } from './read-text.js';
import type { FoundFile } from './walk.js';

const KIND_BY_EXT: Readonly<Record<string, PolicyKind>> = { '.native': 'native', '.rego': 'opa' };

/** Files read at once. */
const READ_CONCURRENCY = 32;

interface CodeFile {
  name: string;
  kind: PolicyKind;
  code: FoundFile;
  settings: FoundFile | null;
}

/** Builds the declared policies from the files found under `policies/`, collecting every problem. */
export async function readPolicies(files: readonly FoundFile[]): Promise<{ policies: DeclaredPolicy[]; problems: SourceProblem[] }> {
  const { codeFiles, problems } = pairFiles(files);
  problems.push(...duplicateNames(codeFiles));
  const results = await mapLimit(codeFiles, READ_CONCURRENCY, readPolicy);
  const policies: DeclaredPolicy[] = [];
  for (const result of results) {
    problems.push(...result.problems);
    if (result.policy !== null) policies.push(result.policy);
  }
  return { policies: policies.sort(byName), problems };
}

/** Pairs each code file with the settings file of the same stem in the same folder. */
function pairFiles(files: readonly FoundFile[]): { codeFiles: CodeFile[]; problems: SourceProblem[] } {
  const settingsByStem = new Map<string, FoundFile>();
  for (const file of files) {
    const { folder, stem, ext } = splitPath(file.rel);
    if (ext === '.yaml') settingsByStem.set(`${folder}/${stem}`, file);
  }
  const codeFiles: CodeFile[] = [];
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
    problems.push({ file: file.rel, message: `settings file without policy code: expected ${stem}.native or ${stem}.rego in the same folder` });
  }
  return { codeFiles, problems };
}

function duplicateNames(codeFiles: readonly CodeFile[]): SourceProblem[] {
  const filesByName = new Map<string, string[]>();
  for (const { name, code } of codeFiles) filesByName.set(name, [...(filesByName.get(name) ?? []), code.rel]);
  const problems: SourceProblem[] = [];
  for (const [name, paths] of filesByName) {
    if (paths.length < 2) continue;
    const message = `policy name "${name}" is used by ${paths.length} files (${paths.join(', ')}); a name must be unique across kinds and folders`;
    problems.push({ file: paths[0] as string, message });
  }
  return problems;
}

async function readPolicy(entry: CodeFile): Promise<{ policy: DeclaredPolicy | null; problems: SourceProblem[] }> {
  const [code, settingsText] = await Promise.all([readCode(entry.code), entry.settings ? readText(entry.settings) : null]);
  const problems: SourceProblem[] = [];
  if ('problem' in code) problems.push(code.problem);
  let settings = defaultPolicySettings();
  if (settingsText !== null && 'problem' in settingsText) problems.push(settingsText.problem);
  if (settingsText !== null && 'text' in settingsText && entry.settings !== null) {
    const read = readPolicySettings(entry.kind, entry.settings.rel, settingsText.text);
    problems.push(...read.problems);
    settings = read.settings;
  }
  if (entry.kind === 'opa' && entry.settings === null) {
    const message = `an opa policy needs a settings file ${entry.name}.yaml beside it with its query (e.g. query: data.terraform.example.deny)`;
    problems.push({ file: entry.code.rel, message });
  }
  if (problems.length > 0 || !('text' in code)) return { policy: null, problems };
  const policy: DeclaredPolicy = {
    name: entry.name,
    kind: entry.kind,
    file: entry.code.rel,
    absolutePath: entry.code.abs,
    settingsFile: entry.settings?.rel ?? null,
    code: code.text,
    ...settings,
  };
  return { policy, problems };
}
