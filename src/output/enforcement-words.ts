/**
 * What every format says of whom a plan blocks and of what a rollout holds back: a change's block line (or, held by
 * a rollout, the level it applies now and whom promotion would block), the count of blocking changes for a plan's
 * head, and the warning of a rollout that lowers a live level while it holds.
 */
import { LEVEL_RANK, type EnforcementLevel } from '../model.js';
import { blocks, type ChangeEvidence } from '../plan/evidence.js';
import type { RolloutStatus } from '../plan/rollout.js';
import type { Change, Plan, SourcePlan } from '../plan/types.js';
import { count } from '../plural.js';
import { blockingLine, someNames } from './evidence-words.js';

/** A change's tightened policies held by their rollouts: the level they apply now, the level promotion applies, whom promotion would block. */
export interface Hold {
  start: EnforcementLevel;
  level: EnforcementLevel;
  /** A versioned set's policies its rollout holds, sorted; absent for a policy's own rollout or a YAML set's members. */
  policies?: string[];
  /** The failing workspaces whose runs promotion would block. */
  blocking: string[];
}

/** Whom a change blocks now, and what a rollout holds back of it. */
export interface Block {
  now: string[];
  held: Hold | null;
}

const byRank = (a: EnforcementLevel, b: EnforcementLevel) => LEVEL_RANK[a] - LEVEL_RANK[b];

/**
 * Whom a change blocks now and what its rollouts hold: a policy whose rollout starts or holds blocks none now; a YAML
 * set's change whose every policy is held likewise; a versioned set's change blocks now only the failing workspaces
 * of its raised policies that its rollout does not hold (its evidence by policy says which), and promotion the rest.
 */
export function blockOf(change: Change, rollouts: readonly RolloutStatus[]): Block {
  const e = change.evidence;
  if (e === undefined) return { now: [], held: null };
  const active = rollouts.filter((r) => r.state !== 'promoted');
  const ofSet = change.resource === 'policy-set' ? active.filter((r) => r.set === change.name) : [];
  if (ofSet.length > 0) return setBlock(e, ofSet);
  const names = change.resource === 'policy' ? [change.name] : e.policies;
  const holds = names.map((name) => active.find((r) => r.policy === name && r.set === undefined));
  if (names.length === 0 || holds.some((h) => h === undefined)) return { now: e.blocking, held: null };
  const start = holds.map((h) => h!.start).sort(byRank).at(-1)!;
  const level = holds.map((h) => h!.level).sort(byRank).at(-1)!;
  return { now: [], held: { start, level, blocking: e.blocking } };
}

function setBlock(e: ChangeEvidence, held: readonly RolloutStatus[]): Block {
  const names = new Set(held.map((r) => r.policy));
  const start = held.map((h) => h.start).sort(byRank).at(-1)!;
  const level = held.map((h) => h.level).sort(byRank).at(-1)!;
  const policies = [...names].sort();
  if (e.by_policy === undefined) {
    const allHeld = e.policies.every((p) => names.has(p));
    return allHeld ? { now: [], held: { start, level, policies, blocking: e.blocking } } : { now: e.blocking, held: { start, level, policies, blocking: [] } };
  }
  const union = (list: typeof e.by_policy) => [...new Set(list.flatMap((p) => p.failing))].sort();
  const now = union(e.by_policy.filter((p) => p.blocking && !names.has(p.policy))).filter((w) => e.blocking.includes(w));
  return { now, held: { start, level, policies, blocking: union(e.by_policy.filter((p) => names.has(p.policy) && blocks(p.level))) } };
}

/** The rollout that holds a change's raise, or null (blockOf). */
export function holdOf(change: Change, rollouts: readonly RolloutStatus[]): Hold | null {
  return blockOf(change, rollouts).held;
}

/**
 * e.g. `would block runs in app-prod, data-prod`; held by a rollout, `held at advisory by its rollout; promotion to
 * hard-mandatory would block runs in app-prod` (a versioned set's: `held at advisory by the set's rollout: s3-logging;
 * promotion …`); empty when the change blocks none and holds none back.
 */
export function blockLines(block: Block): Array<{ line: string; now: boolean }> {
  const lines: Array<{ line: string; now: boolean }> = [];
  if (block.now.length > 0) lines.push({ line: `would block runs in ${someNames(block.now)}`, now: true });
  const h = block.held;
  if (h !== null && (h.blocking.length > 0 || h.policies !== undefined)) {
    const by = h.policies === undefined ? 'its rollout' : `the set's rollout: ${someNames(h.policies)}`;
    const promotion = h.blocking.length === 0 ? `promotion to ${h.level} blocks no run today` : `promotion to ${h.level} would block runs in ${someNames(h.blocking)}`;
    lines.push({ line: `held at ${h.start} by ${by}; ${promotion}`, now: false });
  }
  return lines;
}

/** The first block line of a change's evidence (text and Markdown say each): as blockLines, for one policy's change. */
export function blockLine(e: ChangeEvidence, hold: Hold | null): string | null {
  const lines = blockLines(hold === null ? { now: e.blocking, held: null } : { now: [], held: hold });
  return lines[0]?.line ?? (e.blocking.length === 0 ? null : blockingLine(e));
}

/**
 * What a change's visible line (the Markdown plan's list item, outside its details) says of its block: `⛔ blocks
 * app-prod, data-prod`, and/or `⏸ held at advisory; promotion to hard-mandatory would block app-prod`; null when
 * neither.
 */
export function visibleBlock(change: Change, rollouts: readonly RolloutStatus[]): string | null {
  const { now, held } = blockOf(change, rollouts);
  const parts = [
    ...(now.length === 0 ? [] : [`⛔ blocks ${someNames(now)}`]),
    ...(held === null || held.blocking.length === 0 ? [] : [`⏸ held at ${held.start}; promotion to ${held.level} would block ${someNames(held.blocking)}`]),
  ];
  return parts.length === 0 ? null : parts.join(' · ');
}

/**
 * The changes of the plans that block runs now and the workspaces they block (sorted), and those a rollout holds with
 * the workspaces their promotion would block.
 */
export function blockSummary(plans: readonly SourcePlan[]): { changes: number; workspaces: string[]; held: number; heldWorkspaces: string[] } {
  let changes = 0;
  let held = 0;
  const workspaces = new Set<string>();
  const heldWorkspaces = new Set<string>();
  for (const { plan } of plans) {
    for (const change of plan?.changes ?? []) {
      const block = blockOf(change, plan?.rollouts ?? []);
      if (block.now.length > 0) changes += 1;
      for (const name of block.now) workspaces.add(name);
      if (block.held !== null && block.held.blocking.length > 0) held += 1;
      for (const name of block.held?.blocking ?? []) heldWorkspaces.add(name);
    }
  }
  return { changes, workspaces: [...workspaces].sort(), held, heldWorkspaces: [...heldWorkspaces].sort() };
}

/**
 * e.g. `2 changes block runs in 3 workspaces: app-prod, data-prod, web-dev`, then `1 change held by its rollout:
 * promotion would block runs in 1 workspace: app-prod`; null when none blocks or holds.
 */
export function blockSummaryLine(plans: readonly SourcePlan[]): string | null {
  const { changes, workspaces, held, heldWorkspaces } = blockSummary(plans);
  const parts = [
    ...(changes === 0 ? [] : [`${count(changes, 'change')} ${changes === 1 ? 'blocks' : 'block'} runs in ${count(workspaces.length, 'workspace')}: ${someNames(workspaces)}`]),
    ...(held === 0 ? [] : [`${count(held, 'change')} held by ${held === 1 ? 'its rollout' : 'their rollouts'}: promotion would block runs in ${count(heldWorkspaces.length, 'workspace')}: ${someNames(heldWorkspaces)}`]),
  ];
  return parts.length === 0 ? null : parts.join('; ');
}

/**
 * A plan's warnings, with one for each policy whose rollout lowers the level the service enforces now: while it holds
 * at its start level, runs that fail it are stopped less than today.
 */
export function planWarnings(plan: Plan): string[] {
  const lowered: string[] = [];
  for (const change of plan.changes) {
    if (change.resource !== 'policy') continue;
    const field = change.fields['enforcement-level'];
    const hold = holdOf(change, plan.rollouts ?? []);
    if (hold === null || field === undefined || typeof field.before !== 'string' || typeof field.after !== 'string') continue;
    const before = LEVEL_RANK[field.before as EnforcementLevel];
    const after = LEVEL_RANK[field.after as EnforcementLevel];
    if (before === undefined || after === undefined || after >= before) continue;
    lowered.push(`policy "${change.name}": its rollout lowers the live level ${field.before} to ${field.after} until it is promoted to ${hold.level}; enforcement loosens meanwhile`);
  }
  return [...plan.warnings, ...lowered.filter((line) => !plan.warnings.includes(line))];
}
