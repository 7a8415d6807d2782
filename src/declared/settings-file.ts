import type { SourceProblem } from '../errors.js';
import { checkYaml, parseYaml, type SchemaIssue, type YamlDocument } from '../yaml/index.js';
import type { EntryLines } from './types.js';

/** A settings file after parsing and schema validation. */
export interface SettingsFile {
  /** Null when the YAML did not parse. */
  doc: YamlDocument | null;
  /** The mapping in the file (an empty file is an empty mapping); null when it is not a mapping. */
  settings: Record<string, unknown> | null;
  problems: SourceProblem[];
}

/**
 * Parses a YAML settings file and validates it against a published schema, collecting every problem.
 * `skipIssue` lets the caller drop schema issues it reports better itself.
 */
export function readSettingsFile(
  file: string,
  text: string,
  schema: 'policy-settings' | 'policy-set' | 'agent-pool',
  skipIssue: (issue: SchemaIssue) => boolean = () => false,
): SettingsFile {
  const parsed = parseYaml(text, file);
  if ('problems' in parsed) return { doc: null, settings: null, problems: parsed.problems };
  const value = parsed.doc.value ?? {};
  const isMapping = typeof value === 'object' && !Array.isArray(value);
  return {
    doc: parsed.doc,
    settings: isMapping ? (value as Record<string, unknown>) : null,
    problems: checkYaml(schema, parsed.doc, { value, skip: skipIssue }),
  };
}

export function withFile(file: string, line: number | undefined, message: string): SourceProblem {
  return line === undefined ? { file, message } : { file, line, message };
}

/**
 * The lines of the lists under `keys`: the key's own as `key`, each entry's as `key.N`. Kept with what was read, for
 * the problems found after reading (a name that matches nothing in the organization), which name the file and line.
 */
export function listLines(doc: YamlDocument | null, keys: readonly string[]): EntryLines {
  const lines: Record<string, number> = {};
  const value = doc?.value;
  if (doc === null || value === null || typeof value !== 'object') return lines;
  for (const key of keys) {
    const list = (value as Record<string, unknown>)[key];
    if (!Array.isArray(list)) continue;
    const line = doc.lineOfKey([key]);
    if (line !== undefined) lines[key] = line;
    list.forEach((_, index) => {
      const at = doc.lineOf([key, index]);
      if (at !== undefined) lines[`${key}.${index}`] = at;
    });
  }
  return lines;
}
