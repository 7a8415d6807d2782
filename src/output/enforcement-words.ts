/**
 * What every format says of whom a plan blocks and of what a rollout holds back: a change's block line (or, held by
 * a rollout, the level it applies now and whom promotion would block), the count of blocking changes for a plan's
 * head, and the warning of a rollout that lowers a live level while it holds.
 */
import { LEVEL_RANK, type EnforcementLevel } from '../model.js';
import type { ChangeEvidence } from '../plan/evidence.js';
import type { RolloutStatus } from '../plan/rollout.js';
import type { Change, Plan, SourcePlan } from '../plan/types.js';
import { count } from '../plural.js';
import { blockingLine, someNames } from './evidence-words.js';

/** A change's tightened policies held by their rollouts: the level each applies now, and the level promotion applies. */
export interface Hold {
  start: EnforcementLevel;
  level: EnforcementLevel;
}

/**
 * The rollout that holds a change's raise, or null: a policy whose rollout starts or holds; a set's change when every
 * policy its evidence names is held (they hold at one level, or the softest start is said).
 */
export function holdOf(change: Change, rollouts: readonly RolloutStatus[]): Hold | null {
  const held = rollouts.filter((r) => r.state !== 'promoted');
  if (held.length === 0) return null;
  const names = change.resource === 'policy' ? [change.name] : change.evidence?.policies ?? [];
  const holds = names.map((name) => held.find((r) => r.policy === name));
  if (names.length === 0 || holds.some((h) => h === undefined)) return null;
  const byRank = (a: EnforcementLevel, b: EnforcementLevel) => LEVEL_RANK[a] - LEVEL_RANK[b];
  const starts = holds.map((h) => h!.start).sort(byRank);
  const levels = holds.map((h) => h!.level).sort(byRank);
  return { start: starts.at(-1)!, level: levels.at(-1)! };
}

/**
 * e.g. `would block runs in app-prod, data-prod`; held by a rollout, `held at advisory by its rollout; promotion to
 * hard-mandatory would block runs in app-prod`; null when the change blocks none.
 */
export function blockLine(e: ChangeEvidence, hold: Hold | null): string | null {
  if (e.blocking.length === 0) return null;
  if (hold !== null) return `held at ${hold.start} by its rollout; promotion to ${hold.level} would block runs in ${someNames(e.blocking)}`;
  return blockingLine(e);
}

/**
 * What a change's visible line (the Markdown plan's list item, outside its details) says of its block: `⛔ blocks
 * app-prod, data-prod`, or `⏸ held at advisory; promotion would block app-prod`; null when it blocks none.
 */
export function visibleBlock(change: Change, rollouts: readonly RolloutStatus[]): string | null {
  const e = change.evidence;
  if (e === undefined || e.blocking.length === 0) return null;
  const hold = holdOf(change, rollouts);
  if (hold !== null) return `⏸ held at ${hold.start}; promotion to ${hold.level} would block ${someNames(e.blocking)}`;
  return `⛔ blocks ${someNames(e.blocking)}`;
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
      if (change.evidence === undefined || change.evidence.blocking.length === 0) continue;
      const isHeld = holdOf(change, plan?.rollouts ?? []) !== null;
      if (isHeld) held += 1;
      else changes += 1;
      for (const name of change.evidence.blocking) (isHeld ? heldWorkspaces : workspaces).add(name);
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
