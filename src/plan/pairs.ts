/**
 * The one pairing step: each declared resource with the live one it describes, each live resource no declaration
 * describes on its own, and who owns each. Every later step (the diffs, prune, the count of what is kept, the apply
 * meeting a resource made meanwhile) reads these pairs and asks `ownsUndeclared`; a new resource kind or ownership
 * rule is taught here once. Pure.
 */
import type { DeclaredPolicy, DeclaredPolicySet, DeclaredPool, DeclaredState } from '../declared/types.js';
import type { LivePolicy, LivePolicySet, LivePool, LiveState, Ownership, PolicyKind } from '../model.js';
import { markerSource } from './marker.js';

/**
 * Who owns a live resource, as this source sees it: itself (its marker), another source (that source's marker),
 * no one, and this source may take it (`may-be-taken`: no marker, and it declares it, or owns the organization), or
 * no one that makes it this source's to touch (`not-ours`: no marker, not declared, under `ownership: marker`; pools,
 * which carry no marker, alike).
 */
export type Owner = 'this-source' | 'another-source' | 'may-be-taken' | 'not-ours';

export interface Pair<D, L> {
  /** null: a live resource no declaration describes. */
  declared: D | null;
  /** null: nothing live of that name (a creation). */
  live: L | null;
  owner: Owner;
  /** The source the live resource's marker names, or null. */
  markedBy: string | null;
}

export type PolicyPair = Pair<DeclaredPolicy, LivePolicy>;
export type PoolPair = Pair<DeclaredPool, LivePool>;
export type SetPair = Pair<DeclaredPolicySet, LivePolicySet>;

export interface OwnershipOptions {
  source: string;
  ownership: Ownership;
  adopt?: boolean;
}

export interface Pairing {
  /** The declared policies in their order, then the undeclared live ones in theirs. */
  policies: PolicyPair[];
  /** The declared pools in their order, then the live pools none of them claimed, in theirs. */
  pools: PoolPair[];
  /** The declared policy sets in their order, then the undeclared live ones (none when the source declares no set: they are not read). */
  sets: SetPair[];
  /** What the pairing of pools could not settle (a previous name still live beside the new one). */
  warnings: string[];
}

export function pairResources(declared: DeclaredState, live: LiveState, options: OwnershipOptions): Pairing {
  const pools = matchPools(declared.pools, live.pools);
  return {
    policies: matchPolicies(declared.policies, live.policies).map((m) => pair(m.declared, m.live, options)),
    pools: pools.matches.map((m) => pair(m.declared, m.live, options)),
    sets: matchByName(declared.policySets ?? [], live.policySets ?? []).map((m) => pair(m.declared, m.live, options)),
    warnings: pools.warnings,
  };
}

/** A declared resource and the live one it describes, before ownership is asked (reading the live state uses these). */
export interface Match<D, L> {
  declared: D | null;
  live: L | null;
}

/** Policies match by name: the declared ones in their order, then the live ones no declaration names, in theirs. */
export function matchPolicies<L extends { name: string }>(declared: readonly DeclaredPolicy[], live: readonly L[]): Array<Match<DeclaredPolicy, L>> {
  return matchByName(declared, live);
}

/** Resources that match by name (policies, policy sets): the declared ones in their order, then the live ones no declaration names. */
function matchByName<D extends { name: string }, L extends { name: string }>(declared: readonly D[], live: readonly L[]): Array<Match<D, L>> {
  const byName = new Map(live.map((policy) => [policy.name, policy]));
  const declaredNames = new Set(declared.map((policy) => policy.name));
  return [
    ...declared.map((policy) => ({ declared: policy, live: byName.get(policy.name) ?? null })),
    ...live.filter((policy) => !declaredNames.has(policy.name)).map((policy) => ({ declared: null, live: policy })),
  ];
}

/**
 * Pools match by name first; a declared pool with no live pool of its name takes one of its `previous-names` that no
 * other declared pool claimed by name (a rename). The live pools none of them claimed follow, in their order.
 */
export function matchPools<L extends { id: string; name: string }>(
  declared: readonly DeclaredPool[],
  live: readonly L[],
): { matches: Array<Match<DeclaredPool, L>>; warnings: string[] } {
  const byName = new Map(live.map((pool) => [pool.name, pool]));
  const claimed = new Set<string>();
  for (const pool of declared) {
    const current = byName.get(pool.name);
    if (current !== undefined) claimed.add(current.id);
  }
  const matches: Array<Match<DeclaredPool, L>> = [];
  const warnings: string[] = [];
  for (const pool of declared) {
    let current = byName.get(pool.name);
    if (current === undefined) {
      current = pool.previousNames.map((name) => byName.get(name)).find((p) => p !== undefined && !claimed.has(p.id));
      if (current !== undefined) claimed.add(current.id);
    } else {
      for (const old of pool.previousNames.filter((name) => byName.has(name))) {
        warnings.push(
          `agent-pool "${pool.name}": a live pool still has its previous name "${old}" but "${pool.name}" exists too; ` +
            'nothing is renamed. Remove one of them, or drop the name from previous-names.',
        );
      }
    }
    matches.push({ declared: pool, live: current ?? null });
  }
  for (const pool of live) if (!claimed.has(pool.id)) matches.push({ declared: null, live: pool });
  return { matches, warnings };
}

/** Policies and policy sets carry their owner in their description's marker; pools carry none. */
function pair<D, L extends LivePolicy | LivePolicySet | LivePool>(declared: D | null, live: L | null, options: OwnershipOptions): Pair<D, L> {
  const markedBy = live !== null && 'description' in live ? markerSource(live.description) : null;
  return { declared, live, owner: ownerOf(markedBy, declared !== null, options), markedBy };
}

/** Whose a live resource is, from the marker it carries (null: none) and whether this source declares it. */
export function ownerOf(markedBy: string | null, declared: boolean, options: OwnershipOptions): Owner {
  if (markedBy === options.source) return 'this-source';
  if (markedBy !== null) return 'another-source';
  return declared || options.ownership === 'organization' ? 'may-be-taken' : 'not-ours';
}

/**
 * Whether a live resource is another source's and stays so: its marker names another source, and adopt is off. The
 * one decision of adopt: a declared policy so claimed is a conflict (`policies.ts`), an undeclared one is not this
 * source's (`ownsUndeclared`), and prune meeting one under `ownership: organization` is a conflict (`prune.ts`).
 */
export function claimedElsewhere(owner: Owner, options: OwnershipOptions): boolean {
  return owner === 'another-source' && options.adopt !== true;
}

/**
 * Whether a live resource that this source does not declare is its own: prune deletes it, and a create that meets
 * it (made meanwhile, see `refuseMet`) uses it. Under `ownership: marker`, what carries this source's marker; under `organization`,
 * everything but what another source's marker claims, unless adopt is on.
 */
export function ownsUndeclared(owner: Owner, options: OwnershipOptions): boolean {
  if (owner === 'this-source') return true;
  if (options.ownership !== 'organization') return false;
  return owner === 'may-be-taken' || (owner === 'another-source' && !claimedElsewhere(owner, options));
}

/**
 * Whether a live resource that a create met by its name, and the plan never saw, is this source's: as an undeclared
 * one would be (`ownsUndeclared`), adopt aside (adopting is decided on a plan, never on a write). Policies ask it
 * through `refuseMet`; a pool, which carries no marker (`markedBy` null), is this source's only under `ownership:
 * organization`, whoever made it.
 */
export function ownsMet(markedBy: string | null, options: OwnershipOptions): boolean {
  return ownsUndeclared(ownerOf(markedBy, false, options), { source: options.source, ownership: options.ownership });
}

/** A live policy or policy set that a create met by its name and the plan never saw: made meanwhile, or by this very create. */
export interface MetResource {
  name: string;
  description: string | null;
  /** As the service sent it: a kind this tool does not know is kept as it came, and is never the declared one. */
  kind: PolicyKind | (string & {});
}

/**
 * Why a create may not take the live policy or policy set of its name that it met, or null when it may. Every create
 * that meets one asks this: the create whose name was taken (a 422) and the create whose answer was lost (found by
 * name), of a policy and of a set alike. The plan never saw it, so it is this source's only as an undeclared one would
 * be (`ownsUndeclared`, adopt aside: adopting is decided on a plan, never on a write), and only when it is of the
 * declared kind.
 */
export function refuseMet(met: MetResource, kind: PolicyKind, options: OwnershipOptions, resource: 'policy' | 'policy set' = 'policy'): string | null {
  const markedBy = markerSource(met.description);
  const ours = ownsMet(markedBy, options);
  if (ours && met.kind === kind) return null;
  const whose = markedBy === null ? 'carries no ownership marker' : `carries the ownership marker of source "${markedBy}"`;
  return `conflict: a ${met.kind || '(none)'} ${resource} "${met.name}" appeared since the plan was made and ${whose}; it is left alone`;
}
