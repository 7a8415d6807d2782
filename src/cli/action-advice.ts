import type { SourcePlan } from '../plan/types.js';

/** Set by the GitHub Action: the user there sets the action's inputs, not flags, so advice names those. */
export function inAction(env: NodeJS.ProcessEnv): boolean {
  return env['POLICY_POOL_SYNC_ACTION'] === 'true';
}

/** The flags an error may advise, and the action's input each one is. */
const SWITCHES = ['force', 'allow-empty', 'adopt', 'prune', 'strict-imports'];
const VALUES = ['max-agent-pools', 'timeout', 'api-url', 'source-dir', 'organization', 'source', 'config', 'state-dir', 'native-kind', 'parameter-env', 'parameter-files', 'out', 'plan', 'evidence-window', 'evidence-max-requests'];

/** `pass --force` as `set the action's input force: true`, `--timeout` as `the action's input timeout`, and so on. */
export function adviceForAction(text: string): string {
  return text
    .replace(new RegExp(`\\b(?:pass |add |with )?--(${SWITCHES.join('|')})\\b`, 'g'), "set the action's input $1: true")
    .replace(new RegExp(`--(${VALUES.join('|')})\\b(?![\\w-])`, 'g'), "the action's input $1");
}

/** Each source's errors and warnings with advice for the action, when it runs in the action; the plans as they are otherwise. */
export function plansForReader(plans: readonly SourcePlan[], env: NodeJS.ProcessEnv): SourcePlan[] {
  if (!inAction(env)) return [...plans];
  return plans.map((source) =>
    source.plan === null
      ? { ...source, errors: source.errors.map(adviceForAction) }
      : { ...source, plan: { ...source.plan, errors: source.plan.errors.map(adviceForAction), warnings: source.plan.warnings.map(adviceForAction) } },
  );
}
