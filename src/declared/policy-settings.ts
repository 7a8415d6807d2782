import { LEVELS_BY_KIND, type EnforcementLevel, type PolicyKind } from '../model.js';
import type { SourceProblem } from '../errors.js';
import type { EntryLines } from './types.js';
import { listLines, readSettingsFile, withFile } from './settings-file.js';

/** The settings part of a declared policy. */
export interface PolicySettings {
  description: string | null;
  enforcementLevel: EnforcementLevel;
  query: string | null;
  policySets: string[] | null;
  /** Lines of `policy-sets` and its entries. */
  lines?: EntryLines;
}

const DEFAULT_LEVEL: EnforcementLevel = 'advisory';

/** Settings of a policy with no settings file: all defaults. An opa policy cannot have none, since it needs a query. */
export function defaultPolicySettings(): PolicySettings {
  return { description: null, enforcementLevel: DEFAULT_LEVEL, query: null, policySets: null };
}

/** Reads a policy's settings file for a policy of `kind`; every problem is returned, with its line. */
export function readPolicySettings(
  kind: PolicyKind,
  file: string,
  text: string,
): { settings: PolicySettings; problems: SourceProblem[] } {
  const parsed = readSettingsFile(file, text, 'policy-settings', (issue) => issue.keyword === 'enum' && issue.path.join('/') === 'enforcement-level');
  const problems = [...parsed.problems];
  const raw = parsed.settings ?? {};
  const level = raw['enforcement-level'];
  const levels = LEVELS_BY_KIND[kind];
  if (typeof level === 'string' && !levels.includes(level as EnforcementLevel)) {
    const message = `enforcement-level "${level}" is not valid for a${kind === 'opa' ? 'n opa' : ' native'} policy (${levels.join(', ')})`;
    problems.push(withFile(file, parsed.doc?.lineOf(['enforcement-level']), message));
  }
  if (kind === 'native' && 'query' in raw) {
    const message = 'query is not allowed for a native policy; remove it, or write the policy in Rego (<name>.rego) to make it opa';
    problems.push(withFile(file, parsed.doc?.lineOfKey(['query']), message));
  }
  if (kind === 'opa' && parsed.settings !== null && !('query' in raw)) {
    problems.push(withFile(file, undefined, 'query is required for an opa policy (e.g. query: data.terraform.example.deny)'));
  }
  const settings: PolicySettings = {
    description: typeof raw.description === 'string' ? raw.description : null,
    enforcementLevel: typeof level === 'string' ? (level as EnforcementLevel) : DEFAULT_LEVEL,
    query: kind === 'opa' && typeof raw.query === 'string' ? raw.query : null,
    policySets: Array.isArray(raw['policy-sets']) ? (raw['policy-sets'] as string[]) : null,
    lines: listLines(parsed.doc, ['policy-sets']),
  };
  return { settings, problems };
}
