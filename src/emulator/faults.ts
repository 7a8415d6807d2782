/** Injected faults: checked in order, the first matching live fault fires. */
import type { FaultSpec } from './types.js';

interface LiveFault {
  spec: FaultSpec;
  pattern: RegExp | null;
  /** Remaining uses; Infinity when unlimited. */
  remaining: number;
}

export interface FaultList {
  add(specs: FaultSpec[]): void;
  clear(): void;
  /** Consumes one use of the first fault that matches. */
  take(method: string, path: string): FaultSpec | null;
}

export function createFaultList(): FaultList {
  let faults: LiveFault[] = [];
  return {
    add(specs) {
      for (const spec of specs) {
        const count = spec.count ?? 1;
        faults.push({ spec, pattern: spec.path === undefined ? null : new RegExp(spec.path), remaining: count === 0 ? Infinity : count });
      }
    },
    clear() {
      faults = [];
    },
    take(method, path) {
      for (const fault of faults) {
        if (fault.remaining <= 0) continue;
        if (fault.spec.method !== undefined && fault.spec.method.toUpperCase() !== method) continue;
        if (fault.pattern !== null && !fault.pattern.test(path)) continue;
        fault.remaining -= 1;
        return fault.spec;
      }
      return null;
    },
  };
}
