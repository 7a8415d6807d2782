import { Agent, fetch } from 'undici';
import { errorMessage, UsageError } from '../errors.js';
import type { StatusRow } from './control-output.js';

/** The daemon's HTTP endpoints, as the control commands use them. */
export interface DaemonClient {
  statuses(): Promise<StatusRow[]>;
  /** `POST /sources/<name>/<action>`; throws a UsageError saying what the daemon answered when it is not a 2xx. */
  post(source: string, action: string, query: Record<string, string>): Promise<unknown>;
}

/** A `sync` waits as long as its pass takes: no header or body deadline. */
const patient = new Agent({ headersTimeout: 0, bodyTimeout: 0 });

export function controlClient(origin: string, env: NodeJS.ProcessEnv): DaemonClient {
  const bearer = (name: string): Record<string, string> => {
    const token = env[name];
    return token === undefined || token === '' ? {} : { authorization: `Bearer ${token}` };
  };
  async function request(method: 'GET' | 'POST', path: string, tokenEnv: string): Promise<unknown> {
    let response;
    try {
      response = await fetch(`${origin}${path}`, { method, headers: bearer(tokenEnv), dispatcher: patient });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new UsageError(`cannot reach the daemon at ${origin}: ${cause?.code ?? cause?.message ?? errorMessage(error)}; give its address with --daemon URL`);
    }
    const text = await response.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
    if (response.ok) return body;
    const said = (body as { error?: unknown } | null)?.error;
    const hint = response.status === 401 ? ` (set ${tokenEnv} to the daemon's token)` : '';
    throw new UsageError(`the daemon answered ${method} ${path} with ${response.status}: ${typeof said === 'string' ? said : text.slice(0, 200)}${hint}`);
  }
  return {
    async statuses() {
      const body = (await request('GET', '/status', 'STATUS_TOKEN')) as { sources?: StatusRow[] } | null;
      return body?.sources ?? [];
    },
    post(source, action, query) {
      const search = new URLSearchParams(query).toString();
      return request('POST', `/sources/${encodeURIComponent(source)}/${action}${search === '' ? '' : `?${search}`}`, 'CONTROL_TOKEN');
    },
  };
}
