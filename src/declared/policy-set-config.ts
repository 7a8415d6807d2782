import path from 'node:path';
import type { SourceProblem } from '../errors.js';
import type { PolicyKind } from '../model.js';
import { isValidName, NAME_RULE } from './resource-names.js';
import { HclLimitError, HclSyntaxError, parseHcl, type HclDocument } from '../hcl.js';
import { checkSetConfigSchema, configFacts, MAX_CONFIG_DIAGNOSTICS, syntaxDiagnostic } from '../policy-set-config-schema.js';

/** The config file that makes a folder a versioned policy set, and the kind it gives the set. */
export const SET_CONFIG_FILES: Readonly<Record<string, PolicyKind>> = { 'sentinel.hcl': 'native', 'native.hcl': 'native', 'policies.hcl': 'opa' };

/** What the config file declares: its policies and modules, by name, with the file each names (null: none named). */
export interface SetConfig {
  policies: Array<{ name: string; source: string | null; level?: string }>;
  modules: Array<{ name: string; source: string }>;
}

type Blocks = HclDocument;

/** The `import` blocks whose `source` names a file of the set. */
const IMPORT_TYPES = ['module', 'static', 'plugin'] as const;

/**
 * Parses a set's config file (`rel`, relative to the source root) and checks it against the set's folder: every
 * `source` of a `policy` and of an `import "module"`, `"static"` or `"plugin"` block must name a file of `files` (paths relative to the folder),
 * never a remote URL, an absolute path or a path through `..`; every policy name must be valid. The file's schema is
 * checked too (policy-set-config-schema.ts): one problem per error with its line, at most MAX_CONFIG_DIAGNOSTICS, then a count.
 * `read` gives the text of one of `files`, for the parameters a policy declares.
 */
export async function readSetConfig(
  rel: string, text: string, files: ReadonlySet<string>, read: (file: string) => string | null = () => null,
): Promise<{ config: SetConfig; problems: SourceProblem[] }> {
  const config: SetConfig = { policies: [], modules: [] };
  let blocks: Blocks;
  try {
    blocks = await parseHcl(path.posix.basename(rel), text);
  } catch (error) {
    // Only the file's fault is a problem of the repo; a parser that cannot load is a fault of the installation.
    if (!(error instanceof HclSyntaxError)) throw error;
    return { config, problems: [error instanceof HclLimitError ? { file: rel, message: `is not read: ${error.message}` } : syntaxProblem(rel, error.message)] };
  }
  const problems: SourceProblem[] = schemaProblems(rel, text, blocks, files, read);
  const check = (what: string, source: unknown): string | null => {
    const problem = sourceProblem(source, files);
    if (problem !== null) problems.push({ file: rel, message: `${what}: ${problem}` });
    return typeof source === 'string' ? source : null;
  };
  for (const [name, bodies] of Object.entries(asBlocks(blocks['policy']))) {
    if (!isValidName(name)) problems.push({ file: rel, message: `policy "${name}" is not a valid policy name; ${NAME_RULE}` });
    if (bodies.length > 1) problems.push({ file: rel, message: `policy "${name}" is declared ${bodies.length} times` });
    const source = bodies[0]?.['source'];
    const level = bodies[0]?.['enforcement_level'];
    config.policies.push({ name, source: source === undefined ? null : check(`policy "${name}" source`, source), ...(typeof level === 'string' ? { level } : {}) });
  }
  const imports = blocks['import'];
  // Every import with a source is packed with the set: modules, static data and plugins alike.
  for (const type of IMPORT_TYPES) {
    const declared = imports !== null && typeof imports === 'object' ? (Array.isArray(imports) ? (imports[0] as Blocks | undefined)?.[type] : (imports as Blocks)[type]) : undefined;
    for (const [name, bodies] of Object.entries(asBlocks(declared))) {
      const source = check(`import "${type}" "${name}" source`, bodies[0]?.['source']);
      if (source !== null && type === 'module') config.modules.push({ name, source });
    }
  }
  // `module "NAME"`: the form before `import "module"`, which published libraries still ship.
  for (const [name, bodies] of Object.entries(asBlocks(blocks['module']))) {
    const source = check(`module "${name}" source`, bodies[0]?.['source']);
    if (source !== null) config.modules.push({ name, source });
  }
  return { config, problems };
}

/** The parser's first diagnostic, which is the error, with its line; the ones that follow from it counted. */
function syntaxProblem(rel: string, message: string): SourceProblem {
  const { first, more } = syntaxDiagnostic(path.posix.basename(rel), message);
  const line = /^[^:]+:(\d+),/.exec(first)?.[1];
  const text = `does not parse as HCL: ${first}${more > 0 ? ` (${more} more diagnostic${more === 1 ? '' : 's'} follow from it)` : ''}`;
  return line === undefined ? { file: rel, message: text } : { file: rel, line: Number(line), message: text };
}

/** The schema's problems, each with its line and column, capped. */
function schemaProblems(rel: string, text: string, document: Blocks, files: ReadonlySet<string>, read: (file: string) => string | null): SourceProblem[] {
  const kind = SET_CONFIG_FILES[path.posix.basename(rel)] ?? 'native';
  const local = (source: string): string | null => (sourceProblem(source, files) === null ? read(path.posix.normalize(source.replaceAll('\\', '/'))) : null);
  const found = checkSetConfigSchema(text, kind, configFacts(document, local));
  const problems: SourceProblem[] = found.slice(0, MAX_CONFIG_DIAGNOSTICS).map((d) => ({ file: rel, line: d.line, message: `${d.message} (column ${d.column})` }));
  if (found.length > MAX_CONFIG_DIAGNOSTICS) problems.push({ file: rel, message: `and ${found.length - MAX_CONFIG_DIAGNOSTICS} more problems of the same kind` });
  return problems;
}

/** The parser's shape of labelled blocks: `{ label: [body, ...] }`. */
function asBlocks(value: unknown): Record<string, Array<Record<string, unknown>>> {
  if (Array.isArray(value)) return asBlocks(value[0]);
  if (value === null || typeof value !== 'object') return {};
  const blocks: Record<string, Array<Record<string, unknown>>> = {};
  for (const [label, bodies] of Object.entries(value as Record<string, unknown>)) {
    blocks[label] = Array.isArray(bodies) ? (bodies.filter((b) => b !== null && typeof b === 'object') as Array<Record<string, unknown>>) : [];
  }
  return blocks;
}

/** Why a `source` cannot be packed with the set, or null when it names one of its files. */
function sourceProblem(source: unknown, files: ReadonlySet<string>): string | null {
  if (typeof source !== 'string' || source === '') return 'must be the path of a file of the set\'s folder';
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(source) || source.includes('::')) return `"${source}" is a remote location; the set's files must be in its folder`;
  if (source.startsWith('/') || /^[A-Za-z]:[\\/]/.test(source)) return `"${source}" is an absolute path; name the file relative to the set's folder`;
  if (source.split(/[\\/]/).includes('..')) return `"${source}" goes through ..; every file of a set must be inside its folder`;
  const normal = path.posix.normalize(source.replaceAll('\\', '/'));
  if (!files.has(normal)) return `"${source}" is not a file of the set's folder (missing, a link out of the folder, or left out by .syncignore or the built-in rules)`;
  return null;
}
