import { Agent, fetch } from 'undici';
import { errorMessage, UsageError } from '../errors.js';
import { printable } from '../output/printable.js';
import type { DaemonStatus, PassSummary } from './control-output.js';
import { readStatus, readSyncPass } from './control-shapes.js';

/** The daemon's HTTP endpoints, as the control commands use them. */
export interface DaemonClient {
  /** `GET /status`: the sources, and whether this replica leads (under leader election). */
  status(): Promise<DaemonStatus>;
  /** `POST /sources/<name>/sync?wait=1`: the pass it started, once it ended (null: the daemon stopped first). */
  sync(source: string, query: Record<string, string>): Promise<PassSummary['pass']>;
  /** `POST /sources/<name>/suspend|resume`. */
  act(source: string, action: 'suspend' | 'resume'): Promise<void>;
}

export interface ClientLimits {
  /** Seconds one request may take, answer included. */
  requestSeconds: number;
  /** Seconds a `sync` may wait for its pass to end (a pass may take `pass-timeout`, 600 s by default). */
  syncSeconds: number;
  /** Bytes of an answer read at most: the daemon's are a few kB. */
  maxBytes: number;
}

export const CLIENT_LIMITS: ClientLimits = { requestSeconds: 30, syncSeconds: 900, maxBytes: 4 * 1024 * 1024 };

/** The deadlines are the AbortSignal's; the agent's own would cut a `sync` waiting for a long pass. */
const dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0 });

/** Every answer is read within a deadline and a size cap, and checked for its shape; each failure is a UsageError naming the URL. */
export function controlClient(origin: string, env: NodeJS.ProcessEnv, limits: ClientLimits = CLIENT_LIMITS): DaemonClient {
  const bearer = (name: string): Record<string, string> => {
    const token = env[name];
    return token === undefined || token === '' ? {} : { authorization: `Bearer ${token}` };
  };
  async function request(method: 'GET' | 'POST', path: string, tokenEnv: string, seconds: number): Promise<unknown> {
    const url = `${origin}${path}`;
    const signal = AbortSignal.timeout(seconds * 1000);
    const late = () => new UsageError(`the daemon at ${origin} did not answer ${method} ${path} within ${seconds} s: check --daemon URL, or give it longer with --timeout SECONDS`);
    let response;
    try {
      response = await fetch(url, { method, headers: bearer(tokenEnv), dispatcher, signal });
    } catch (error) {
      if (signal.aborted) throw late();
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new UsageError(`cannot reach the daemon at ${origin}: ${cause?.code ?? cause?.message ?? errorMessage(error)}; give its address with --daemon URL`);
    }
    let text: string;
    try {
      text = await cappedText(response, limits.maxBytes);
    } catch (error) {
      if (error instanceof UsageError) throw new UsageError(`the answer of ${url} ${error.message}: is --daemon URL a policy-pool-sync daemon?`);
      if (signal.aborted) throw late();
      throw new UsageError(`the daemon at ${origin} broke off its answer to ${method} ${path}: ${printable(errorMessage(error))}`);
    }
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
    if (response.ok) return body;
    const said = (body as { error?: unknown } | null)?.error;
    const hint = response.status === 401 ? ` (set ${tokenEnv} to the daemon's token)` : '';
    // A usage error keeps its lines: the daemon's words are made one printable line first.
    throw new UsageError(`the daemon answered ${method} ${path} with ${response.status}: ${printable(typeof said === 'string' ? said.slice(0, 500) : text.slice(0, 200))}${hint}`);
  }
  const checked = <T>(what: string, value: T | string): T => {
    if (typeof value !== 'string') return value;
    throw new UsageError(`the daemon at ${origin} answered ${what} in a shape this client does not know (${printable(value)}): is --daemon URL a policy-pool-sync daemon of this version?`);
  };
  const sourcePath = (source: string, action: string) => `/sources/${encodeURIComponent(source)}/${action}`;
  return {
    async status() {
      return checked('GET /status', readStatus(await request('GET', '/status', 'STATUS_TOKEN', limits.requestSeconds)));
    },
    async sync(source, query) {
      const path = `${sourcePath(source, 'sync')}?${new URLSearchParams(query).toString()}`;
      return checked(`POST ${path}`, readSyncPass(await request('POST', path, 'CONTROL_TOKEN', limits.syncSeconds)));
    },
    async act(source, action) {
      await request('POST', sourcePath(source, action), 'CONTROL_TOKEN', limits.requestSeconds);
    },
  };
}

/** The body as text; a UsageError (`is larger than N MiB`) as soon as it passes `maxBytes`, reading no further. */
async function cappedText(response: Awaited<ReturnType<typeof fetch>>, maxBytes: number): Promise<string> {
  const tooLarge = () => new UsageError(`is larger than ${maxBytes / (1024 * 1024)} MiB`);
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (response.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    // Leaving the loop cancels the stream: the rest is never read.
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
