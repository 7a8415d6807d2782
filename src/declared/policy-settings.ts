import { LEVEL_RANK, LEVELS_BY_KIND, type EnforcementLevel, type PolicyKind, type RolloutSpec } from '../model.js';
import { parseDuration } from './duration.js';
import type { SourceProblem } from '../errors.js';
import type { EntryLines, MemberEnforcement } from './types.js';
import { listLines, readSettingsFile, withFile } from './settings-file.js';

/** The settings part of a declared policy. */
export interface PolicySettings {
  description: string | null;
  enforcementLevel: EnforcementLevel;
  query: string | null;
  policySets: string[] | null;
  /** The declared rollout; absent when none. */
  rollout?: RolloutSpec;
  /**
   * The settings file whose `enforcement-level` and `rollout` the policy has: its own when they declare either (a
   * YAML set's then never apply to it), a YAML set's for a member that declares neither (member-enforcement.ts).
   * Absent: neither is declared anywhere, the level is the default.
   */
  levelFrom?: string;
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
  const invalid = typeof level === 'string' ? levelProblem(level, kind, 'policy') : null;
  if (invalid !== null) problems.push(withFile(file, parsed.doc?.lineOf(['enforcement-level']), invalid));
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
    ...('enforcement-level' in raw || 'rollout' in raw ? { levelFrom: file } : {}),
  };
  if (raw.rollout !== undefined && parsed.problems.length === 0) {
    const rollout = readRollout(raw.rollout as RawRollout, kind, settings.enforcementLevel);
    if (typeof rollout === 'string') problems.push(withFile(file, parsed.doc?.lineOf(['rollout']), rollout));
    else settings.rollout = rollout;
  }
  return { settings, problems };
}

/** Why `level` is not valid for a `noun` (a policy, a policy set) of `kind`; null when it is. */
export function levelProblem(level: string, kind: PolicyKind, noun: string): string | null {
  const levels = LEVELS_BY_KIND[kind];
  if (levels.includes(level as EnforcementLevel)) return null;
  return `enforcement-level "${level}" is not valid for a${kind === 'opa' ? 'n opa' : ' native'} ${noun} (${levels.join(', ')})`;
}

export interface RawRollout {
  start: EnforcementLevel;
  'clean-runs'?: number;
  'failing-workspaces'?: number;
  after?: string;
}

/**
 * A schema-valid `rollout:` block, checked against the kind and declared level of the policy (or of the YAML set whose
 * members take it: `noun`); a string says what is wrong.
 */
export function readRollout(raw: RawRollout, kind: PolicyKind, level: EnforcementLevel, noun = 'policy'): RolloutSpec | string {
  if (!LEVELS_BY_KIND[kind].includes(raw.start)) return `rollout start "${raw.start}" is not valid for a${kind === 'opa' ? 'n opa' : ' native'} ${noun} (${LEVELS_BY_KIND[kind].join(', ')})`;
  if (LEVEL_RANK[raw.start] >= LEVEL_RANK[level]) {
    return `rollout start "${raw.start}" must be less strict than the enforcement-level "${level}" it rolls out to`;
  }
  const after = raw.after ?? null;
  return {
    start: raw.start,
    cleanRuns: raw['clean-runs'] ?? 1,
    failingWorkspaces: raw['failing-workspaces'] ?? 0,
    afterMs: after === null ? 0 : (parseDuration(after) ?? 0),
    after: after ?? '0s',
  };
}

/**
 * What a YAML set's settings give its members that declare neither of their own: `enforcement-level` (valid for the
 * set's kind; advisory when absent) and `rollout:`, checked as a policy's; null when the set declares neither.
 */
export function readMemberEnforcement(
  values: Record<string, unknown>, kind: PolicyKind, file: string, lineOf: (key: string) => number | undefined,
): { members: MemberEnforcement | null; problems: SourceProblem[] } {
  const level = values['enforcement-level'];
  if (level === undefined && values['rollout'] === undefined) return { members: null, problems: [] };
  const invalid = typeof level === 'string' ? levelProblem(level, kind, 'policy set') : null;
  if (invalid !== null) return { members: null, problems: [withFile(file, lineOf('enforcement-level'), invalid)] };
  const enforcementLevel = typeof level === 'string' ? (level as EnforcementLevel) : DEFAULT_LEVEL;
  if (values['rollout'] === undefined) return { members: { enforcementLevel, rollout: null }, problems: [] };
  const rollout = readRollout(values['rollout'] as RawRollout, kind, enforcementLevel, 'policy set');
  if (typeof rollout === 'string') return { members: null, problems: [withFile(file, lineOf('rollout'), rollout)] };
  return { members: { enforcementLevel, rollout }, problems: [] };
}
