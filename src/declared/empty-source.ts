import { basename } from 'node:path';
import type { DeclaredState } from './types.js';

/** A source that declares no policy, policy set or agent pool: most often a path pointing at the wrong folder. */
export function declaresNothing(declared: Pick<DeclaredState, 'policies' | 'pools' | 'policySets'>): boolean {
  return declared.policies.length === 0 && declared.pools.length === 0 && (declared.policySets ?? []).length === 0;
}

/** Why an empty source is refused, and what to do: point at the right folder, or allow it to be empty. */
export function emptySourceHint(dir: string): string {
  const folder = basename(dir);
  const tooDeep = folder === 'policies' || folder === 'agent-pools'
    ? `${dir} looks like the ${folder} folder itself: point at the folder that holds it. `
    : '';
  return `${tooDeep}A source holds policies/**/*.native, policies/**/*.rego and agent-pools/*.yaml; set allow-empty: true on the source (or pass --allow-empty) if it is meant to be empty.`;
}

/** The error of a pass over an empty source, made before any request. */
export function emptySourceError(dir: string): string {
  return `the source declares nothing in ${dir}. ${emptySourceHint(dir)}`;
}
