import type { Change, ChangeAction, ResourceType } from './types.js';

const ACTION_ORDER: Record<ChangeAction, number> = { create: 0, replace: 1, update: 2, delete: 3 };
const RESOURCE_ORDER: Record<ResourceType, number> = { policy: 0, 'agent-pool': 1, agent: 2 };

function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/** Creates, replaces, updates, deletes; within each: policy, agent-pool, agent; then by name, then id. */
export function compareChanges(a: Change, b: Change): number {
  return (
    ACTION_ORDER[a.action] - ACTION_ORDER[b.action] ||
    RESOURCE_ORDER[a.resource] - RESOURCE_ORDER[b.resource] ||
    compareText(a.name, b.name) ||
    compareText(a.id ?? '', b.id ?? '')
  );
}

export function sortChanges<T extends Change>(changes: readonly T[]): T[] {
  return [...changes].sort(compareChanges);
}
