import type { Change, ChangeResult } from '../plan/types.js';

/** Times a change this source applied must be found undone, within FIGHT_WINDOW_MS, before it is called a fight. */
export const FIGHT_UNDOS = 2;
/** How long an undo counts: a fight is named while its resource was undone FIGHT_UNDOS times in the last hour. */
export const FIGHT_WINDOW_MS = 60 * 60_000;

/** A resource another writer keeps changing back: this source applies a change, and a later pass must apply it again. */
export interface Fight {
  resource: Change['resource'];
  name: string;
  /** What each pass has to do again: `update (code)`, `create`, ... */
  change: string;
  /** Times it was found undone within FIGHT_WINDOW_MS. */
  undone: number;
}

export interface FightDetector {
  /** Takes a pass's plan and apply results; answers the resources fought over now. */
  observe(planned: readonly Change[], results: readonly ChangeResult[]): Fight[];
  /**
   * Forgets what was applied: called when this replica stops leading, since what another replica of the same
   * deployment then writes is no fight.
   */
  forget(): void;
}

/** What this source last applied to one resource, and when that was found undone. */
interface Applied {
  change: string;
  appliedAt: number;
  /** Applied and not yet found undone: the next plan making the same change is an undo. */
  standing: boolean;
  /** When it was found undone, within the window. */
  undoneAt: number[];
}

/**
 * Remembers what a source applied. A resource whose later plan makes the same change again (same action, same
 * fields) was changed back by someone else; FIGHT_UNDOS of those within FIGHT_WINDOW_MS is a fight: most likely a
 * second daemon, or a copy left running, syncing the organization from another repo. Passes that find nothing to do
 * (this source ran again before the other writer did) do not end it: the fight is named until an hour passes with
 * no undo, so an alert on the gauge (`> 0 for 5m`) fires during a steady fight.
 */
export function createFightDetector(now: () => Date = () => new Date()): FightDetector {
  const memory = new Map<string, Applied>();
  return {
    observe(planned, results) {
      const at = now().getTime();
      forget(memory, at);
      for (const change of planned) {
        const before = memory.get(keyOf(change));
        if (before?.standing === true && before.change === describe(change)) {
          before.standing = false;
          before.undoneAt.push(at);
        }
      }
      for (const { change, outcome } of results) {
        if (outcome !== 'applied') continue;
        const before = memory.get(keyOf(change));
        const described = describe(change);
        if (before !== undefined && before.change === described) Object.assign(before, { appliedAt: at, standing: true });
        else memory.set(keyOf(change), { change: described, appliedAt: at, standing: true, undoneAt: [] });
      }
      const fights: Fight[] = [];
      for (const [key, applied] of memory) {
        if (applied.undoneAt.length < FIGHT_UNDOS) continue;
        const [resource, ...name] = key.split(':');
        fights.push({ resource: resource as Change['resource'], name: name.join(':'), change: applied.change, undone: applied.undoneAt.length });
      }
      return fights;
    },
    forget() {
      memory.clear();
    },
  };
}

/** Drops undos older than the window, and what was applied longer ago than the window and never undone since. */
function forget(memory: Map<string, Applied>, at: number): void {
  for (const [key, applied] of memory) {
    applied.undoneAt = applied.undoneAt.filter((t) => at - t < FIGHT_WINDOW_MS);
    if (applied.undoneAt.length === 0 && at - applied.appliedAt >= FIGHT_WINDOW_MS) memory.delete(key);
  }
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
    `${fight.resource} "${fight.name}" is fought over: the ${fight.change} this source applied was undone ${fight.undone} times in the last ` +
    `${FIGHT_WINDOW_MS / 60_000} minutes. Another writer (a second daemon or a copy left running, with another repo) changes it back ` +
    '(or the API does not keep the change), ' +
    'and each pass changes it again (the last writer wins): run one replica per organization and stop the other writer'
  );
}
