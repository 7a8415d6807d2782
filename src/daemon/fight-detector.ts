import type { Change, ChangeResult } from '../plan/types.js';

/** Passes in a row that must find a change this source applied undone, the same way, before it is called a fight. */
export const FIGHT_PASSES = 2;

/** A resource another writer keeps changing back: this source applies a change, and the next pass must apply it again. */
export interface Fight {
  resource: Change['resource'];
  name: string;
  /** What each pass has to do again: `update (code)`, `create`, ... */
  change: string;
  /** Passes in a row that found it undone. */
  passes: number;
}

/**
 * Remembers what a source applied at its last pass. A resource whose next plan makes the same change again (same
 * action, same fields) was changed back by someone else; `FIGHT_PASSES` passes in a row of that is a fight: most
 * likely a second daemon, or a copy left running, syncing the organization from another repo.
 */
export function createFightDetector(): { observe(planned: readonly Change[], results: readonly ChangeResult[]): Fight[] } {
  let applied = new Map<string, { change: string; passes: number }>();
  return {
    observe(planned, results) {
      const undone = new Map<string, number>();
      for (const change of planned) {
        const before = applied.get(keyOf(change));
        if (before !== undefined && before.change === describe(change)) undone.set(keyOf(change), before.passes + 1);
      }
      const next = new Map<string, { change: string; passes: number }>();
      const fights: Fight[] = [];
      for (const { change, outcome } of results) {
        const passes = undone.get(keyOf(change)) ?? 0;
        if (outcome === 'applied') next.set(keyOf(change), { change: describe(change), passes });
        if (passes >= FIGHT_PASSES) fights.push({ resource: change.resource, name: change.name, change: describe(change), passes });
      }
      applied = next;
      return fights;
    },
  };
}

function keyOf(change: Change): string {
  return `${change.resource}:${change.name}`;
}

function describe(change: Change): string {
  const fields = new Set(Object.keys(change.fields));
  if (change.resource === 'policy' && change.uploadCode) fields.add('code');
  return fields.size === 0 || change.action !== 'update' ? change.action : `${change.action} (${[...fields].sort().join(', ')})`;
}

/** The warning a fight makes, on /status and in the log. */
export function fightWarning(fight: Fight): string {
  return (
    `${fight.resource} "${fight.name}" is fought over: the ${fight.change} this source applied was undone before each of the ` +
    `last ${fight.passes} passes. Another writer (a second daemon or a copy left running, with another repo) changes it back ` +
    '(or the API does not keep the change), ' +
    'and each pass changes it again (the last writer wins): run one replica per organization and stop the other writer'
  );
}
