/** Raw HTTP access to a real emulator on a loopback port, for the emulator's own tests. */
import { startEmulator, type RunningEmulator, type Seed } from '../../src/emulator/index.js';

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed body; undefined when the body is empty or not JSON. */
  json: any;
}

export interface CallOptions {
  body?: unknown;
  /** Sent as is instead of JSON. */
  raw?: string | Buffer;
  contentType?: string | null;
  token?: string | null;
  redirect?: 'manual' | 'follow';
}

export interface TestEmulator {
  emu: RunningEmulator;
  /** `path` is after /api/v2 (or absolute when it starts with http). */
  call(method: string, path: string, options?: CallOptions): Promise<RawResponse>;
  /** Control endpoint under /_emulator. */
  control(method: string, path: string, body?: unknown): Promise<RawResponse>;
  close(): Promise<void>;
}

export const TOKEN = 'test-token';

export function testSeed(extra: Partial<Seed> = {}): Seed {
  return {
    token: TOKEN,
    rateLimit: 0,
    organizations: [
      {
        name: 'org',
        workspaces: [
          { id: 'ws-aaaaaaaaaaaaaaaa', name: 'app' },
          { id: 'ws-bbbbbbbbbbbbbbbb', name: 'ops' },
        ],
        policySets: ['polset-aaaaaaaaaaaaaaaa', 'polset-bbbbbbbbbbbbbbbb'],
      },
    ],
    ...extra,
  };
}

export async function startTestEmulator(seed: Seed = testSeed()): Promise<TestEmulator> {
  const emu = await startEmulator({ seed });
  const call = async (method: string, path: string, options: CallOptions = {}): Promise<RawResponse> => {
    const headers: Record<string, string> = {};
    const token = options.token === undefined ? emu.token : options.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: string | Buffer | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    // POST, PATCH and DELETE carry the JSON:API type even without a body, as a correct client sends them.
    const jsonApi = body !== undefined || ['POST', 'PATCH', 'DELETE'].includes(method);
    const contentType = options.contentType === undefined ? (jsonApi ? 'application/vnd.api+json' : null) : options.contentType;
    if (contentType !== null) headers['content-type'] = contentType;
    const url = path.startsWith('http') ? path : `${emu.url}${path}`;
    const res = await fetch(url, { method, headers, body, redirect: options.redirect ?? 'manual' });
    return read(res);
  };
  const control = async (method: string, path: string, body?: unknown): Promise<RawResponse> => {
    const headers: Record<string, string> = { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' };
    const res = await fetch(`${emu.origin}/_emulator${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return read(res);
  };
  return { emu, call, control, close: () => emu.close() };
}

async function read(res: Response): Promise<RawResponse> {
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export function policyBody(name: string, attributes: Record<string, unknown> = {}, policySets: string[] = []): unknown {
  return {
    data: {
      type: 'policies',
      attributes: { name, ...attributes },
      relationships: { 'policy-sets': { data: policySets.map((id) => ({ id, type: 'policy-sets' })) } },
    },
  };
}

export function poolBody(attributes: Record<string, unknown>, allowed?: string[]): unknown {
  const relationships = allowed === undefined ? {} : { 'allowed-workspaces': { data: allowed.map((id) => ({ id, type: 'workspaces' })) } };
  return { data: { type: 'agent-pools', attributes, relationships } };
}

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
