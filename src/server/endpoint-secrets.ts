import { endpointSecret } from '../config/token.js';
import { UsageError } from '../errors.js';
import { isLoopbackHost, parseHostPort } from '../host-port.js';
import type { Logger } from '../logger.js';

/** The environment variable holding the token that guards /status, the status page and /metrics. */
export const STATUS_TOKEN_ENV = 'STATUS_TOKEN';
/** The environment variable holding the bearer token of the control endpoints (`POST /sources/<name>/...`). */
export const CONTROL_TOKEN_ENV = 'CONTROL_TOKEN';

/** The secrets that guard the daemon's endpoints; null: unset. */
export interface EndpointSecrets {
  /** Unset: the status routes are open. */
  status: string | null;
  /** Unset: the control endpoints answer 403 to everyone. */
  control: string | null;
  /** Unset: every webhook is refused. */
  webhook: string | null;
}

/**
 * The three secrets from the environment, each checked by the one rule of `endpointSecret` (printable ASCII, at
 * least 16 characters). Two that hold the same value are refused: a browser that was given the status token at its
 * log-in prompt would otherwise hold the control token too, and a webhook sender would hold either.
 */
export function endpointSecrets(env: NodeJS.ProcessEnv, webhookEnv: string, listen: string, logger: Logger): EndpointSecrets {
  const secrets = {
    status: endpointSecret(env, STATUS_TOKEN_ENV, 'the status token'),
    control: endpointSecret(env, CONTROL_TOKEN_ENV, 'the control token'),
    webhook: endpointSecret(env, webhookEnv, 'the webhook secret'),
  };
  const names = { status: STATUS_TOKEN_ENV, control: CONTROL_TOKEN_ENV, webhook: webhookEnv };
  const pairs = [['status', 'control'], ['status', 'webhook'], ['control', 'webhook']] as const;
  for (const [a, b] of pairs) {
    if (secrets[a] !== null && secrets[a] === secrets[b]) {
      throw new UsageError(`${names[a]} and ${names[b]} hold the same value: give each its own (e.g. \`openssl rand -hex 24\`), so that one cannot be used as the other`);
    }
  }
  if (secrets.status !== null) logger.info(`/status, /status.html and /metrics require the token in ${STATUS_TOKEN_ENV}`);
  else if (!isLoopbackHost(parseHostPort(listen)?.host ?? '')) {
    logger.warn({ listen }, `/status and /metrics are open to anyone who can reach ${listen}: set ${STATUS_TOKEN_ENV} to require a token`);
  }
  if (secrets.control === null) logger.info(`the control endpoints (sync, suspend, resume) are disabled: set ${CONTROL_TOKEN_ENV} to enable them`);
  if (secrets.webhook === null) logger.warn({ env: webhookEnv }, `webhooks are disabled: set ${webhookEnv} to the webhook secret to accept POST /webhook`);
  return secrets;
}
