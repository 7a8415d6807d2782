/** Injected faults: checked in order, the first matching live fault fires. */
import type { FaultSpec } from './types.js';

interface LiveFault {
  spec: FaultSpec;
  pattern: RegExp | null;
  /** Remaining uses; Infinity when unlimited or timed. */
  remaining: number;
  /** For a timed fault (`duration-ms`): when it ends, once it first matched. */
  endsAt: number | null;
  /** Requests it met so far. */
  taken: number;
}

/** What a fault is matched against. */
export interface FaultTarget {
  method: string;
  /** The path after /api/v2, without the query. */
  path: string;
  /** `page[number]` of a list request; 1 when absent. */
  page: number;
  /** Only faults that give a `path` match (an upload link: a fault for every request is meant for the API). */
  pathOnly?: boolean;
}

export interface FaultList {
  add(specs: FaultSpec[]): void;
  clear(): void;
  /** Consumes one use of the first fault that matches. */
  take(target: FaultTarget): FaultSpec | null;
  /** Each fault as added, with the number of requests it met: what a test counts instead of waiting for answers. */
  list(): Array<FaultSpec & { taken: number }>;
}

/** `now`: the emulator's clock, which times faults with a `duration-ms`. */
export function createFaultList(now: () => number): FaultList {
  let faults: LiveFault[] = [];
  return {
    add(specs) {
      for (const spec of specs) {
        const count = spec.count ?? 1;
        const unlimited = count === 0 || spec['duration-ms'] !== undefined;
        faults.push({ spec, pattern: spec.path === undefined ? null : new RegExp(spec.path), remaining: unlimited ? Infinity : count, endsAt: null, taken: 0 });
      }
    },
    clear() {
      faults = [];
    },
    list() {
      return faults.map((fault) => ({ ...fault.spec, taken: fault.taken }));
    },
    take(target) {
      const at = now();
      for (const fault of faults) {
        if (fault.remaining <= 0 || (fault.endsAt !== null && at >= fault.endsAt)) continue;
        if (fault.spec.method !== undefined && fault.spec.method.toUpperCase() !== target.method) continue;
        if (fault.pattern === null ? target.pathOnly === true : !fault.pattern.test(target.path)) continue;
        // A first page has nothing before it to repeat.
        if (fault.spec.kind === 'duplicate-items' && target.page <= 1) continue;
        const duration = fault.spec['duration-ms'];
        if (duration !== undefined) fault.endsAt ??= at + duration;
        fault.remaining -= 1;
        fault.taken += 1;
        return fault.spec;
      }
      return null;
    },
  };
}
