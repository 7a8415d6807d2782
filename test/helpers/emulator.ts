/**
 * The one way tests start the emulator: on a real loopback port, with raw access to /api/v2 (to see documents
 * exactly as it sends them, or to change things behind the tool's back) and to its control endpoints.
 *
 * Raw requests go through undici's `request`, the client the tool itself uses, not the global `fetch`: a test makes
 * thousands of them, and `fetch` (WHATWG streams over the same undici) costs about three times the CPU of each.
 */
import { Agent, Headers, interceptors, request, type Dispatcher } from 'undici';
import { startEmulator, type FaultSpec, type LoggedRequest, type RunningEmulator, type Seed } from '../../src/emulator/index.js';

export type { LoggedRequest };

export const TOKEN = 'test-token-Secret123';
export const ORG = 'example-org';
export const WORKSPACES = [
  { id: 'ws-AppAppApp0001', name: 'app' },
  { id: 'ws-DataDataData01', name: 'data' },
];
export const POLICY_SET = 'polset-Baseline0001';

/** What most suites start with: organization `example-org` with two workspaces, one policy set and room for one pool. */
export function exampleSeed(): Seed {
  return {
    token: TOKEN,
    rateLimit: 0,
    organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES, policySets: [POLICY_SET] }],
  };
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed body; undefined when the body is empty or not JSON. */
  json: any;
}

export interface CallOptions {
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is instead of JSON. */
  raw?: string | Buffer;
  contentType?: string | null;
  /** Another token, or none at all. */
  token?: string | null;
  redirect?: 'manual' | 'follow';
}

/** An organization as `GET /_emulator/state` shows it (kebab-case keys, code inline). */
export interface OrganizationState {
  name: string;
  /** Each set with its scope, versions (`ingressing (then ready)` until a read has seen it) and parameters, sensitive values included. */
  'policy-sets': Array<{ id: string; name: string; kind: string; versions: Array<{ id: string; status: string; 'error-message': string | null; policies: Array<{ name: string; level: string }> }>; parameters: Array<{ key: string; value: string; sensitive: boolean }>; [key: string]: unknown }>;
  policies: EmulatorPolicy[];
  'agent-pools': Array<Record<string, unknown>>;
}

export interface EmulatorPolicy {
  id: string;
  name: string;
  description: string | null;
  kind: string;
  query: string | null;
  'enforcement-level': string;
  code: string | null;
  [key: string]: unknown;
}

export class TestEmulator {
  constructor(readonly emu: RunningEmulator) {}

  /**
   * Starts an emulator on a free loopback port; `seed` replaces the keys of `exampleSeed()` it names. `now`: its clock
   * (a test's virtual clock, so that faults with a duration run on the same time as the client's back-off).
   */
  static async start<T extends TestEmulator>(this: new (emu: RunningEmulator) => T, seed: Partial<Seed> = {}, options: { now?: () => number; requestLogLimit?: number } = {}): Promise<T> {
    const full: Seed = { ...exampleSeed(), ...seed };
    // A suite that turns the rate limit off turns the run lists' own off too, unless it asks for it.
    if (full.rateLimit === 0 && full.runListRateLimit === undefined) full.runListRateLimit = 0;
    return new this(await startEmulator({ port: 0, seed: full, ...options }));
  }

  /** `http://127.0.0.1:PORT/api/v2` */
  get url(): string {
    return this.emu.url;
  }

  get origin(): string {
    return this.emu.origin;
  }

  get token(): string {
    return this.emu.token;
  }

  close(): Promise<void> {
    return this.emu.close();
  }

  /** A raw request; `path` is after /api/v2 (or a whole URL). */
  async call(method: string, path: string, options: CallOptions = {}): Promise<RawResponse> {
    const headers: Record<string, string> = {};
    const token = options.token === undefined ? this.token : options.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    // POST, PATCH and DELETE carry the JSON:API type even without a body, as a correct client sends them.
    const jsonApi = body !== undefined || ['POST', 'PATCH', 'DELETE'].includes(method);
    const contentType = options.contentType === undefined ? (jsonApi ? 'application/vnd.api+json' : null) : options.contentType;
    if (contentType !== null) headers['content-type'] = contentType;
    const url = path.startsWith('http') ? path : `${this.url}${path}`;
    return send(url, { method, headers, body, ...(options.redirect === 'follow' ? { dispatcher: following() } : {}) });
  }

  /** A request to a control endpoint under /_emulator, answered as it comes. */
  async control(method: string, path: string, body?: unknown): Promise<RawResponse> {
    const headers = { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' };
    return send(`${this.origin}/_emulator${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  async addFaults(...faults: FaultSpec[]): Promise<void> {
    await this.controlOk('POST', '/faults', { faults });
  }

  /** The faults added, each with the number of requests it met so far. */
  async faults(): Promise<Array<FaultSpec & { taken: number }>> {
    return ((await this.controlOk('GET', '/faults')) as { faults: Array<FaultSpec & { taken: number }> }).faults;
  }

  async clearFaults(): Promise<void> {
    await this.controlOk('DELETE', '/faults');
  }

  async setRateLimit(limit: number): Promise<void> {
    await this.controlOk('PUT', '/rate-limit', { limit });
  }

  /** Switches of the emulator's pessimistic readings, kebab-case keys; answers all of them. */
  async setBehaviour(changes: Record<string, boolean | string | number>): Promise<Record<string, boolean | string | number>> {
    return (await this.controlOk('PUT', '/behaviour', changes)) as Record<string, boolean | string | number>;
  }

  /** Every request since the log was last cleared. */
  async requests(): Promise<LoggedRequest[]> {
    return ((await this.controlOk('GET', '/requests')) as { requests: LoggedRequest[] }).requests;
  }

  /** The requests that could change something. */
  async writes(): Promise<LoggedRequest[]> {
    return (await this.requests()).filter((r) => r.method !== 'GET');
  }

  async clearRequests(): Promise<void> {
    await this.controlOk('DELETE', '/requests');
  }

  /** Adds agents to the pool with id `pool`; resolves with their ids. */
  async addAgents(pool: string, agents: Array<Record<string, string | null>>): Promise<string[]> {
    return ((await this.controlOk('POST', '/agents', { pool, agents })) as { ids: string[] }).ids;
  }

  async state(): Promise<{ organizations: OrganizationState[] }> {
    return (await this.controlOk('GET', '/state')) as { organizations: OrganizationState[] };
  }

  async organization(name = ORG): Promise<OrganizationState> {
    const found = (await this.state()).organizations.find((o) => o.name === name);
    if (found === undefined) throw new Error(`organization ${name} missing from the emulator state`);
    return found;
  }

  async policies(organization = ORG): Promise<EmulatorPolicy[]> {
    return (await this.organization(organization)).policies;
  }

  /** The description of policy `name` as the API holds it, without the ownership marker; undefined when there is no such policy. */
  async description(name: string, organization = ORG): Promise<string | null | undefined> {
    const policy = (await this.policies(organization)).find((p) => p.name === name);
    return policy === undefined ? undefined : withoutMarker(policy.description);
  }

  private async controlOk(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await this.control(method, path, body);
    if (response.status >= 300) throw new Error(`control ${method} ${path}: ${response.status} ${response.text}`);
    return response.json;
  }
}

let followingAgent: Dispatcher | undefined;
/** A dispatcher that follows redirects (as `fetch` does by default), made on first use. */
function following(): Dispatcher {
  followingAgent ??= new Agent().compose(interceptors.redirect({ maxRedirections: 5 }));
  return followingAgent;
}

async function send(url: string, options: { method: string; headers: Record<string, string>; body: string | Buffer | undefined; dispatcher?: Dispatcher }): Promise<RawResponse> {
  const res = await request(url, { ...options, method: options.method as Dispatcher.HttpMethod });
  const text = await res.body.text();
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) for (const one of [value ?? []].flat()) headers.append(name, one);
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers, text, json };
}

/** A policy description as the API holds it, without the ownership marker. */
export function withoutMarker(description: string | null): string | null {
  return description === null ? null : description.replace(/\s*<!--[\s\S]*?-->\s*$/, '');
}

/** A JSON:API body creating or updating a policy. */
export function policyBody(name: string, attributes: Record<string, unknown> = {}, policySets: string[] = []): unknown {
  return {
    data: {
      type: 'policies',
      attributes: { name, ...attributes },
      relationships: { 'policy-sets': { data: policySets.map((id) => ({ id, type: 'policy-sets' })) } },
    },
  };
}

/** A JSON:API body creating or updating an agent pool. */
export function poolBody(attributes: Record<string, unknown>, allowed?: string[]): unknown {
  const relationships = allowed === undefined ? {} : { 'allowed-workspaces': { data: allowed.map((id) => ({ id, type: 'workspaces' })) } };
  return { data: { type: 'agent-pools', attributes, relationships } };
}

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The emulator's own suites: organization `org` with two workspaces and two policy sets; `extra` replaces keys. */
export function orgSeed(extra: Partial<Seed> = {}): Seed {
  return {
    token: 'test-token',
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
