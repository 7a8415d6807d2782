import type { IncomingHttpHeaders } from 'node:http';
import type { SourceConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import { sourcesForWebhook } from './repository-match.js';
import { verifyGithubSignature, verifyGitlabToken } from './signature.js';
import type { DeliveryLog } from './webhook-deliveries.js';

export interface WebhookResponse {
  status: number;
  body: Record<string, unknown>;
}

export interface WebhookOptions {
  /** null when the environment variable named by `webhook-secret-env` is unset: every webhook is refused. */
  secret: string | null;
  sources: readonly SourceConfig[];
  trigger(sourceNames: string[]): void;
  logger: Logger;
  /** A missing or bad signature: counted and logged (throttled) by the caller. */
  refused(reason: string): void;
  /** The deliveries seen lately: one seen again triggers nothing. */
  deliveries: DeliveryLog;
  /** Leader election: a verified delivery that reaches a standby is handed to the leader (standby.ts); null while leading. */
  standby?(headers: IncomingHttpHeaders, rawBody: Buffer, secret: string): Promise<WebhookResponse> | null;
}

/**
 * `POST /webhook`: a GitHub (`X-Hub-Signature-256`) or GitLab (`X-Gitlab-Token`) push. A missing or bad signature
 * gets 401 and triggers nothing; a delivery seen before (same delivery id or same body, within a day) gets 200 and
 * triggers nothing; a good one triggers the git sources of the pushed repository (all git sources when that cannot be
 * told) and gets 202. On a standby, a verified delivery is handed to the leader, whose answer it passes on.
 */
export function handleWebhook(headers: IncomingHttpHeaders, rawBody: Buffer, options: WebhookOptions): WebhookResponse | Promise<WebhookResponse> {
  if (options.secret === null) {
    options.logger.warn('webhook refused: no webhook secret is configured');
    return { status: 503, body: { error: 'webhooks are disabled: no secret is configured' } };
  }
  const github = header(headers, 'x-hub-signature-256');
  const gitlab = header(headers, 'x-gitlab-token');
  const verified =
    github !== undefined ? verifyGithubSignature(options.secret, rawBody, github)
    : gitlab !== undefined ? verifyGitlabToken(options.secret, gitlab)
    : false;
  if (!verified) {
    const reason = github === undefined && gitlab === undefined ? 'no X-Hub-Signature-256 or X-Gitlab-Token header' : 'signature does not match';
    options.refused(reason);
    return { status: 401, body: { error: `unauthorized: ${reason}` } };
  }
  if (header(headers, 'x-github-event') === 'ping') return { status: 200, body: { accepted: false, event: 'ping' } };
  const handed = options.standby?.(headers, rawBody, options.secret) ?? null;
  if (handed !== null) return handed;
  const delivery = (header(headers, 'x-github-delivery') ?? header(headers, 'x-gitlab-event-uuid'))?.slice(0, 100);
  if (options.deliveries.seen(delivery, rawBody)) {
    options.logger.info({ delivery }, 'webhook delivery already seen: no pass');
    return { status: 200, body: { accepted: false, duplicate: true, ...(delivery === undefined ? {} : { delivery }) } };
  }
  const names = sourcesForWebhook(options.sources, rawBody).map((s) => s.name);
  options.logger.info({ sources: names, sender: github !== undefined ? 'github' : 'gitlab' }, 'webhook accepted');
  options.trigger(names);
  return { status: 202, body: { accepted: true, sources: names } };
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
