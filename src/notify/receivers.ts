import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { NotificationConfig } from '../config/types.js';
import { UsageError } from '../errors.js';
import { decode } from '../redact.js';
import type { Outgoing } from './delivery.js';
import type { NotifyEvent } from './events.js';
import { slackPayload, summaryLine, webhookPayload } from './messages.js';
import type { PassReport } from './report.js';
import { count } from '../plural.js';

/** The header of a webhook's signature: `sha256=` and the HMAC-SHA256 of the body, in hex. */
export const SIGNATURE_HEADER = 'x-policy-pool-sync-signature-256';

/** A commit status's state, as a pass goes. */
export type CommitState = 'pending' | 'success' | 'failure';

/** One configured receiver, its URL and secret read from the environment or a file. */
export interface Receiver {
  config: NotificationConfig;
  /** The message of an event, or null when this receiver does not send events (commit statuses). */
  event(event: NotifyEvent, report: PassReport, time: Date): Outgoing | null;
  /** The commit status of a git revision, or null when this receiver sends none. `ref`: the branch or tag the source reads, when known. */
  status(state: CommitState, report: Pick<PassReport, 'source' | 'revision' | 'organization'>, description: string, ref?: string | null): Outgoing | null;
}

export function openReceiver(config: NotificationConfig, env: NodeJS.ProcessEnv): Receiver {
  const url = receiverUrl(config, env);
  const secret = config.secretEnv === null ? null : nonEmpty(env[config.secretEnv]);
  if (config.secretEnv !== null && secret === null) {
    throw new UsageError(`notification receiver "${config.name}": the environment variable ${config.secretEnv} (secret-env) is not set`);
  }
  const json = (event: string, body: unknown, headers: Record<string, string> = {}): Outgoing => ({
    event,
    url,
    headers: { 'content-type': 'application/json', 'user-agent': 'policy-pool-sync', ...headers },
    body: JSON.stringify(body),
  });
  switch (config.type) {
    case 'webhook':
      return {
        config,
        event(event, report, time) {
          const message = json(event, webhookPayload(event, report, time));
          if (secret !== null) message.headers[SIGNATURE_HEADER] = `sha256=${createHmac('sha256', secret).update(message.body).digest('hex')}`;
          return message;
        },
        status: () => null,
      };
    case 'slack':
      return { config, event: (event, report) => json(event, slackPayload(event, report)), status: () => null };
    case 'github-status':
      return {
        config,
        event: () => null,
        status(state, report, description) {
          if (report.revision === null) return null;
          const body = { state, context: `policy-pool-sync/${report.source}`, description: cutAt(description, 140), ...(config.statusUrl === null ? {} : { target_url: config.statusUrl }) };
          const auth: Record<string, string> = secret === null ? {} : { authorization: `Bearer ${secret}` };
          return { ...json(state, body, { accept: 'application/vnd.github+json', ...auth }), url: `${url.replace(/\/$/, '')}/statuses/${report.revision}` };
        },
      };
    case 'gitlab-status':
      return {
        config,
        event: () => null,
        status(state, report, description, ref) {
          if (report.revision === null) return null;
          const gitlabState = state === 'failure' ? 'failed' : state === 'pending' ? 'running' : 'success';
          const branch = ref === undefined || ref === null ? null : ref.replace(/^refs\/(heads|tags)\//, '');
          const body = {
            state: gitlabState, name: `policy-pool-sync/${report.source}`, description: cutAt(description, 255),
            ...(branch === null ? {} : { ref: branch }), ...(config.statusUrl === null ? {} : { target_url: config.statusUrl }),
          };
          const auth: Record<string, string> = secret === null ? {} : { 'private-token': secret };
          return { ...json(state, body, auth), url: `${gitlabProjectUrl(url)}/statuses/${report.revision}` };
        },
      };
  }
}

/**
 * A GitLab project URL with its id as GitLab's API wants it: a `group/project` path (`.../projects/group/sub/project`)
 * becomes one URL-encoded segment (`.../projects/group%2Fsub%2Fproject`); a numeric id stays as it is.
 */
export function gitlabProjectUrl(url: string): string {
  const parsed = new URL(url);
  const match = /^(.*?\/projects\/)(.+?)\/*$/.exec(parsed.pathname);
  if (match === null) return url.replace(/\/+$/, '');
  const id = (match[2] ?? '').split('/').map(decode).join('/');
  parsed.pathname = `${match[1] ?? ''}${encodeURIComponent(id)}`;
  return parsed.href.replace(/\/+$/, '');
}

/** At most `max` characters, counted in code points (never half of one), the last an ellipsis when cut. */
export function cutAt(text: string, max: number): string {
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, max - 1).join('')}…`;
}

/** A commit status's description for a finished pass. */
export function statusDescription(report: PassReport): string {
  if (!report.ok) return summaryLine('failed', report).replace(/^policy-pool-sync: /, '');
  const applied = report.changes.filter((c) => c.outcome === 'applied').length;
  if (report.windowClosed) return `${report.changes.length} changes waiting for the sync window`;
  return applied === 0 ? 'in sync: nothing to change' : `applied ${count(applied, 'change')}`;
}

function receiverUrl(config: NotificationConfig, env: NodeJS.ProcessEnv): string {
  let value: string | null;
  if (config.urlEnv !== null) {
    value = nonEmpty(env[config.urlEnv]);
    if (value === null) throw new UsageError(`notification receiver "${config.name}": the environment variable ${config.urlEnv} (url-env) is not set`);
  } else if (config.urlFile === null) {
    throw new UsageError(`notification receiver "${config.name}" needs url-env or url-file`);
  } else {
    try {
      value = nonEmpty(readFileSync(config.urlFile, 'utf8'));
    } catch {
      value = null;
    }
    if (value === null) throw new UsageError(`notification receiver "${config.name}": cannot read a URL from ${config.urlFile} (url-file)`);
  }
  // The URL itself is never quoted: a Slack URL is a secret.
  if (!/^https?:\/\/\S+$/.test(value)) throw new UsageError(`notification receiver "${config.name}": the URL is not an http(s) URL`);
  return value;
}

function nonEmpty(value: string | undefined): string | null {
  return value === undefined || value.trim() === '' ? null : value.trim();
}
