import type { Change } from '../plan/types.js';

export interface ActionResult {
  change: Change;
  outcome: 'applied' | 'failed' | 'skipped';
  /** Why it failed or was skipped. */
  message: string | null;
}

export interface ApplyResult {
  results: ActionResult[];
  failed: number;
}
