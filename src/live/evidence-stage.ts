/**
 * The evidence stage, beside the live read: the runs a plan needs, read only for the changes that tighten enforcement
 * and the rollouts under way, and nothing at all when there are none. The planner gets them as data (plan/evidence.ts):
 * it plans once without evidence to find what tightens, the runs are read, then the rollouts are decided on them and
 * the plan made again, each tightening change carrying its evidence.
 */
import type { RunCache } from '../api/evidence-cache.js';
import type { PolicyApi } from '../api/types.js';
import type { DeclaredState } from '../declared/types.js';
import { errorMessage } from '../errors.js';
import type { LiveState, PolicyReport } from '../model.js';
import type { Evidence, EvidenceWorkspace } from '../plan/evidence.js';
import { markerRollout } from '../plan/marker.js';
import type { Resolved } from '../plan/names.js';
import { pairResources, type Pairing } from '../plan/pairs.js';
import { planPairs } from '../plan/plan.js';
import { livePolicyOf, rolloutsInProgress, withRollouts } from '../plan/rollout.js';
import { setRolloutsInProgress, withSetRollouts } from '../plan/set-rollout.js';
import { inScope, policyScopes, tightenings, withEvidence } from '../plan/tightening.js';
import type { Plan, PlanOptions } from '../plan/types.js';
import { count } from '../plural.js';
import { runEvidenceReader, type EvidenceReader } from './run-evidence.js';

export type { EvidenceReader };

export interface EvidenceSettings {
  /** How far back a tightening's evidence looks. @default 30 days */
  windowMs: number;
  /** The most requests a plan spends on runs. @default 500 */
  maxRequests: number;
  /** The most time a plan spends on runs, in seconds; past it the evidence is partial. @default 120 */
  maxSeconds?: number;
  /** Reads the runs. @default `readEvidence` over the pass's client (run-evidence.ts) */
  reader?: EvidenceReader;
  /** The findings of finished runs, kept across passes by whoever runs them; absent: the default reader starts cold. */
  runCache?: RunCache;
}

export const DEFAULT_EVIDENCE: Omit<EvidenceSettings, 'reader'> = { windowMs: 30 * 86_400_000, maxRequests: 500, maxSeconds: 120 };

export interface EvidencePlanInput {
  api: PolicyApi;
  organization: string;
  /** With names resolved (plan/names.ts) and the code texts the plan shows. */
  declared: DeclaredState;
  live: LiveState;
  options: PlanOptions;
  names: Pick<Resolved, 'errors' | 'warnings'>;
  settings: EvidenceSettings;
}

/** e.g. `30 days`, `36 hours`. */
export function windowWords(ms: number): string {
  return ms % 86_400_000 === 0 ? count(ms / 86_400_000, 'day') : count(Math.max(1, Math.round(ms / 3_600_000)), 'hour');
}

/** The plan with its evidence and rollouts, and the one pairing the final plan was made from. */
export async function planWithEvidence(input: EvidencePlanInput): Promise<{ plan: Plan; pairing: Pairing }> {
  const { declared, live, options, names } = input;
  const draftPairing = pairResources(declared, live, options);
  const draft = planPairs(draftPairing, declared, live, options, names);
  const evidence = await readEvidence(input, draft);
  const policyRolled = withRollouts(declared, live, evidence, options.now);
  const setRolled = withSetRollouts(policyRolled.declared, live, evidence, options.now);
  const rolled = { declared: setRolled.declared, rollouts: [...policyRolled.rollouts, ...setRolled.rollouts] };
  const pairing = rolled.rollouts.length === 0 && rolled.declared === declared ? null : pairResources(rolled.declared, live, options);
  const final = pairing === null ? draft : planPairs(pairing, rolled.declared, live, options, names);
  const plan = withEvidence(final, tightenings(draft.changes, declared, live), evidence);
  const warnings = evidence?.warning === undefined ? plan.warnings : [...plan.warnings, evidence.warning];
  return { plan: { ...plan, warnings, ...(rolled.rollouts.length === 0 ? {} : { rollouts: rolled.rollouts }) }, pairing: pairing ?? draftPairing };
}

/**
 * The runs of the policies that the draft plan tightens and of the rollouts under way, in the workspaces in their
 * scope; null when there are none (nothing is read). A read that fails is partial evidence, with a warning.
 */
async function readEvidence(input: EvidencePlanInput, draft: Plan): Promise<(Evidence & { warning?: string }) | null> {
  const { declared, live, settings, options } = input;
  const found = tightenings(draft.changes, declared, live);
  const rolling = rolloutsInProgress(declared, live);
  const setRolling = setRolloutsInProgress(declared, live);
  if (found.length === 0 && rolling.length === 0 && setRolling.length === 0) return null;
  const window = windowWords(settings.windowMs);
  let workspaces: EvidenceWorkspace[];
  try {
    // A set scoped by tags holds the workspaces its selectors match: the list then carries each workspace's tags.
    const tagged = (declared.policySets ?? []).some((set) => (set.tags?.selectors.length ?? 0) > 0) || (live.policySets ?? []).some((set) => (set.tagSelectors ?? []).length > 0);
    workspaces = (await input.api.listWorkspaces(input.organization, tagged ? { tags: true } : {})).map(({ id, name, projectId, tags }) => ({ id, name, projectId, ...(tags === undefined ? {} : { tags }) }));
  } catch (error) {
    return { window, workspaces: [], runs: {}, partial: true, warning: `the runs could not be read (${errorMessage(error)}); the evidence is partial and no rollout promotes` };
  }
  const asks = new Map<string, Set<string>>();
  const ask = (policy: string, ids: readonly string[]) => asks.set(policy, new Set([...(asks.get(policy) ?? []), ...ids]));
  for (const t of found) for (const p of t.policies) ask(p.name, inScope(t.scopes, workspaces));
  const starts: number[] = [];
  for (const name of rolling) {
    const policy = declared.policies.find((p) => p.name === name)!;
    const current = livePolicyOf(policy, live);
    starts.push(markerRollout(current?.description ?? null)?.startedAt ?? options.now);
    ask(name, inScope(policyScopes({ declared: policy, live: current }, declared, live), workspaces));
  }
  for (const held of setRolling) {
    starts.push(held.startedAt);
    ask(held.policy, inScope([held.scope], workspaces));
  }
  const since = Math.min(options.now - settings.windowMs, ...starts);
  const policies = [...asks].map(([policy, ids]) => ({ policy, workspaceIds: [...ids].sort(), ...reportOf(policy, declared, live) })).filter((a) => a.workspaceIds.length > 0);
  if (policies.length === 0) return { window, workspaces, runs: {}, partial: false };
  try {
    const reader = settings.reader ?? runEvidenceReader(input.api.runs, settings.runCache, () => options.now);
    const read = await reader({ organization: input.organization, workspaces, policies, since, maxRequests: settings.maxRequests, maxMs: (settings.maxSeconds ?? 120) * 1000 });
    return { window, workspaces, runs: read.runs, partial: read.partial };
  } catch (error) {
    return { window, workspaces, runs: {}, partial: true, warning: `the runs could not be read (${errorMessage(error)}); the evidence is partial and no rollout promotes` };
  }
}

/**
 * How the service reports a policy's results, from its kind and its sets' settings (a declared set's where the repo
 * declares it, the live one's otherwise): a Sentinel set that is not agent-enabled by a policy check (its default,
 * `policy-sets.mdx`), an OPA set or an agent-enabled Sentinel set by a policy evaluation; sets of both, or none
 * known, either.
 */
function reportOf(name: string, declared: DeclaredState, live: LiveState): { kind?: 'native' | 'opa'; via?: PolicyReport } {
  const policy = declared.policies.find((p) => p.name === name);
  const current = policy === undefined ? live.policies.find((p) => p.name === name) ?? null : livePolicyOf(policy, live);
  const kind = policy?.kind ?? current?.kind;
  if (kind === undefined) return {};
  if (kind === 'opa') return { kind, via: 'evaluation' };
  const sets = policy?.policySets ?? current?.policySetIds ?? [];
  const agent = sets.map((entry) => {
    const liveSet = (live.policySets ?? []).find((s) => s.id === entry || s.name === entry);
    const set = (declared.policySets ?? []).find((s) => s.name === entry || s.name === liveSet?.name);
    return set?.agentEnabled ?? liveSet?.agentEnabled ?? null;
  });
  if (agent.length === 0 || agent.some((a) => a === null)) return { kind };
  if (agent.every((a) => a === false)) return { kind, via: 'check' };
  if (agent.every((a) => a === true)) return { kind, via: 'evaluation' };
  return { kind };
}
