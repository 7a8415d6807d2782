import type { SourceProblem } from '../errors.js';
import { checkSchema, type SchemaIssue, type SchemaName } from './settings-schema.js';
import { parseYamlSource, type YamlSource } from './yaml-source.js';

/** A settings file after parsing and schema validation. */
export interface SettingsFile {
  /** Null when the YAML did not parse. */
  source: YamlSource | null;
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
  schema: SchemaName,
  skipIssue: (issue: SchemaIssue) => boolean = () => false,
): SettingsFile {
  const parsed = parseYamlSource(text);
  if ('problems' in parsed) {
    const problems = parsed.problems.map((problem) => withFile(file, problem.line, problem.message));
    return { source: null, settings: null, problems };
  }
  const value = parsed.source.value ?? {};
  const issues = checkSchema(schema, parsed.source, value).filter((issue) => !skipIssue(issue));
  const isMapping = typeof value === 'object' && !Array.isArray(value);
  return {
    source: parsed.source,
    settings: isMapping ? (value as Record<string, unknown>) : null,
    problems: issues.map((issue) => withFile(file, issue.line, issue.message)),
  };
}

export function withFile(file: string, line: number | undefined, message: string): SourceProblem {
  return line === undefined ? { file, message } : { file, line, message };
}
