import { createHmac } from 'node:crypto';
import { DEFAULT_API_CONCURRENCY, DEFAULT_RETRY_BUDGET_SECONDS } from '../config/to-config.js';
import type { Logger } from '../logger.js';
import { CodeTooLargeError } from '../errors.js';
import { MAX_CODE_BYTES, wireKind, type NativeKindName } from '../model.js';
import { createAgentPoolBody, createPolicyBody, updateAgentPoolBody, updatePolicyBody, type Dialect } from './bodies.js';
import { systemClock, type Clock } from './clock.js';
import { fetchDownload, fetchDownloadBytes, fetchDownloadDigest, type StreamedCode } from './download.js';
import { field, int, primary } from './json-api.js';
import { idSegment } from './ids.js';
import { NativeKind } from './native-kind.js';
import { PolicySetEndpoints } from './policy-sets.js';
import type { ProxySettings } from '../http/proxy.js';
import { listAll, queryString } from './paginate.js';
import { parseAgent, parseAgentPool, parseAgentToken, parseMadeAgentToken, parsePolicy } from './resources.js';
import { learnSecrets } from '../redact.js';
import type { TagSelector } from '../model.js';
import { deleteDone, sendOne } from './exchanges.js';
import { readWith, successBody } from './responses.js';
import { RunEndpoints } from './runs.js';
import type { RunApi } from './run-types.js';
import type { HttpMethod, StreamedBody, TransportStats } from './http-types.js';
import { Transport } from './transport.js';
import { sharedSignal } from '../signals.js';
import { stateSeal, type StateSeal } from '../state-seal.js';
import { userAgent } from '../version.js';
import type {
  Agent, AgentPool, AgentPoolList, CreateAgentPoolInput, CreatePolicyInput, CreatePolicySetInput,
  CreatePolicySetParameterInput, Entitlements, ListAgentPoolsOptions, ListPoliciesOptions, ListPolicySetsOptions,
  ListProjectsOptions, ListWorkspacesOptions, Policy, PolicyApi, PolicyRef, PolicySet, PolicySetInclude,
  PolicySetParameter, PolicySetRelationship, PolicySetVersion, Project, UpdateAgentPoolInput, UpdatePolicyInput,
  UpdatePolicySetInput, UpdatePolicySetParameterInput, Workspace, AgentToken, MadeAgentToken,
} from './types.js';

export interface ApiClientOptions {
  /** Ends in `/api/v2`. */
  baseUrl: string;
  token: string;
  logger: Logger;
  /** Requests per second, or 'auto' to follow `x-ratelimit-limit`. @default 'auto' */
  rateLimit?: 'auto' | number;
  /** Requests in flight at once. @default 8 */
  concurrency?: number;
  /** Per-request timeout. @default 30000 */
  timeoutMs?: number;
  /** The longest wait for a proxy to establish a tunnel, within the request timeout. @default TUNNEL_DEADLINE_MS (10 s) */
  tunnelDeadlineMs?: number;
  /** Tries after the first, at most, for 5xx, timeouts and dropped connections, whatever the budget leaves. @default unlimited */
  maxRetries?: number;
  /**
   * How long a request may keep trying: retrying 5xx, timeouts and dropped connections with exponential back-off from
   * its first failure, and waiting on 429s from its first 429; also how long the client goes on waiting while the API
   * answers nothing but 429. @default 60000
   */
  retryBudgetMs?: number;
  /** Called once per HTTP response or transport failure, for metrics; `error`: the failure's code (`ECONNREFUSED`, `timeout`, ...) when there was no answer. */
  onRequest?: (info: { method: string; status: number | 'error'; durationMs: number; error?: string }) => void;
  /** Called with the seconds a request waited because of the rate limit (pacing or 429). */
  onRateLimitWait?: (seconds: number) => void;
  /** Time, sleeping and jitter. @default the system clock */
  clock?: Clock;
  /**
   * For servers older than mid-2023: send the enforcement level as the deprecated `enforce` array
   * only, and read levels from `enforce` first. @default false
   */
  legacyEnforce?: boolean;
  /**
   * The API's word for the native kind, sent in `kind`, `filter[kind]` and `enforce` paths; both are read. Unset or
   * null: learned from the kind words of the policies the API returns, or from the 422 that names the allowed kinds
   * (see native-kind.ts); `native` until then. @default null
   */
  nativeKind?: NativeKindName | null;
  /** Sent on every request, the download redirect's included. @default `policy-pool-sync/<version>` */
  userAgent?: string;
  /** HTTP_PROXY, HTTPS_PROXY and NO_PROXY, read by `proxySettings` (http/proxy.ts). @default none */
  proxy?: ProxySettings;
  /** Called just before each request goes on the wire; throws to keep it off (a replica that lost its lease). */
  fence?: () => void;
}

export type ApiClientStats = TransportStats;

type Params = Array<readonly [string, string]>;

/** The Policy and Agent Pool Management API, one method per endpoint; see PolicyApi. */
export class ApiClient implements PolicyApi {
  private readonly transport: Transport;
  private readonly legacy: boolean;
  /** Shared by every client `withSignal` makes of this one. */
  private readonly kind: NativeKind;
  private readonly parsePolicy: (resource: unknown) => Policy;
  /** Set on a client made by `withSignal`: every request of it ends once it aborts. */
  private readonly signal: AbortSignal | undefined;
  /** Policy sets, versions, parameters, workspaces, projects, entitlements (policy-sets.ts). */
  private readonly sets: PolicySetEndpoints;
  /** Runs, task stages, policy evaluations, policy-set outcomes (runs.ts), bound to this client's signal. */
  readonly runs: RunApi;

  /** `bound`: the transport of the client `withSignal` was called on, and the signal; only `withSignal` passes it. */
  constructor(private readonly options: ApiClientOptions, bound?: { transport: Transport; signal: AbortSignal; kind: NativeKind }) {
    this.legacy = options.legacyEnforce ?? false;
    this.kind = bound?.kind ?? new NativeKind(options.nativeKind ?? null, options.logger);
    this.parsePolicy = (resource) => {
      this.kind.observe(field(field(resource, 'attributes'), 'kind'));
      return parsePolicy(resource, this.legacy);
    };
    this.signal = bound?.signal;
    this.transport = bound?.transport ?? new Transport({
      baseUrl: options.baseUrl,
      token: options.token,
      logger: options.logger,
      rateLimit: options.rateLimit ?? 'auto',
      concurrency: options.concurrency ?? DEFAULT_API_CONCURRENCY,
      timeoutMs: options.timeoutMs ?? 30_000,
      ...(options.tunnelDeadlineMs === undefined ? {} : { tunnelDeadlineMs: options.tunnelDeadlineMs }),
      maxRetries: options.maxRetries ?? Infinity,
      retryBudgetMs: options.retryBudgetMs ?? DEFAULT_RETRY_BUDGET_SECONDS * 1000,
      clock: options.clock ?? systemClock(),
      userAgent: options.userAgent ?? userAgent(),
      ...(options.proxy === undefined ? {} : { proxy: options.proxy }),
      onRequest: options.onRequest,
      onRateLimitWait: options.onRateLimitWait,
      ...(options.fence === undefined ? {} : { fence: options.fence }),
    });
    this.sets = new PolicySetEndpoints(this.transport, this.signal, this.kind, options.logger);
    this.runs = new RunEndpoints(this.transport, this.signal);
  }

  stats(): ApiClientStats {
    return this.transport.stats();
  }

  /** The state dir's seal for this API and token (see `PolicyApi.stateSeal`). */
  stateSeal(): StateSeal {
    return stateSeal(this.options.token, this.options.baseUrl);
  }

  /** HMAC-SHA256 (hex) of `text` keyed with the API token (see `PolicyApi.keyedDigest`). */
  keyedDigest(text: string): string {
    return createHmac('sha256', this.options.token).update(text).digest('hex');
  }

  /**
   * The same client (one queue, one pacer, one connection pool) whose every request, queued, paced, backing off or
   * on the wire, ends once `signal` aborts, rejecting with the signal's reason.
   */
  withSignal(signal: AbortSignal): ApiClient {
    if (signal === this.signal) return this;
    if (this.signal === undefined) return new ApiClient(this.options, { transport: this.transport, signal: sharedSignal(signal), kind: this.kind });
    // Bound already (a pass's client): its requests end with either signal, and still count for the pass's reach.
    const both = sharedSignal(AbortSignal.any([this.signal, signal]));
    this.transport.reachAs(both, this.signal);
    return new ApiClient(this.options, { transport: this.transport, signal: both, kind: this.kind });
  }

  /** The API's word for the native kind: given, learned, or `native` until learned. */
  nativeKind(): NativeKindName {
    return this.kind.word;
  }

  private get dialect(): Dialect {
    return { legacy: this.legacy, nativeKind: this.kind.word };
  }

  reached(signal: AbortSignal): boolean | null {
    return this.transport.reached(signal);
  }

  /** Waits for requests under way, then closes the connections; drops those still open after `graceMs` (default 5 s). */
  close(graceMs?: number): Promise<void> {
    return this.transport.close(graceMs);
  }

  async listPolicies(organization: string, options: ListPoliciesOptions = {}): Promise<Policy[]> {
    const params: Params = [];
    if (options.search !== undefined) params.push(['search[name]', options.search]);
    if (options.kind !== undefined) params.push(['filter[kind]', wireKind(options.kind, this.dialect.nativeKind)]);
    if (options.includePolicySets === true) params.push(['include', 'policy_sets']);
    const pages = await listAll(this.transport, this.signal, `/organizations/${seg(organization)}/policies`, params, this.parsePolicy);
    return pages.flatMap((page) => page.items);
  }

  async getPolicy(id: string, options: { includePolicySets?: boolean } = {}): Promise<Policy> {
    const query = options.includePolicySets === true ? queryString([['include', 'policy_sets']]) : '';
    return this.one('GET', `/policies/${idSegment('policy', id)}${query}`, undefined, this.parsePolicy);
  }

  /**
   * A native policy refused with a 422 naming its kind (the API calls the native kind otherwise) is sent again in the
   * other word, once: nothing was written (native-kind.ts).
   * `owns`: whether a policy of the name found after a lost answer is this create's; without it none is (the create
   * is sent again, and a name taken is the service's 422), so no caller takes another's policy by leaving it out.
   */
  async createPolicy(organization: string, input: CreatePolicyInput, owns: (found: Policy) => boolean = () => false): Promise<Policy> {
    const send = () => this.sendCreatePolicy(organization, input, owns);
    return input.kind === 'native' ? this.kind.create(send) : send();
  }

  private sendCreatePolicy(organization: string, input: CreatePolicyInput, owns: (found: Policy) => boolean): Promise<Policy> {
    return this.transport.create({
      request: { method: 'POST', url: this.transport.url(`/organizations/${seg(organization)}/policies`), json: createPolicyBody(input, this.dialect) },
      read: (response) => readWith(response, (body) => this.parsePolicy(primary(body))),
      find: async () => (await this.listPolicies(organization, { search: input.name })).find((p) => p.name === input.name && owns(p)) ?? null,
    }, this.signal);
  }

  /**
   * Sends `code` as it is (bytes, byte order mark and line ends untouched); refuses more than MAX_CODE_BYTES before
   * anything is sent. Resolves with the policy document of the answer (its fresh `updated-at`), or null when the
   * answer carries none.
   */
  async uploadPolicy(id: string, code: Uint8Array | StreamedBody): Promise<Policy | null> {
    const size = 'chunks' in code ? code.length : code.byteLength;
    if (size > MAX_CODE_BYTES) throw new CodeTooLargeError(`the code of policy ${id}`, size, MAX_CODE_BYTES);
    const url = this.transport.url(`/policies/${idSegment('policy', id)}/upload`);
    const body = successBody(await this.transport.send({ method: 'PUT', url, bytes: code }, this.signal));
    try {
      return parsePolicy(primary(body));
    } catch {
      return null;
    }
  }

  /** null: the service answered 404, which it does until code is uploaded. */
  async downloadPolicy(policy: Policy): Promise<string | null> {
    const link = policy.links.download ?? `/api/v2/policies/${idSegment('policy', policy.id)}/download`;
    return fetchDownload(this.transport, this.signal, new URL(link, this.options.baseUrl).href);
  }

  /** The policy's code as the exact bytes stored (for export); null on 404 (no code uploaded yet). */
  async downloadPolicyBytes(policy: Policy): Promise<Buffer | null> {
    const link = policy.links.download ?? `/api/v2/policies/${idSegment('policy', policy.id)}/download`;
    return fetchDownloadBytes(this.transport, this.signal, new URL(link, this.options.baseUrl).href);
  }

  /**
   * The digest of the policy's code, computed as the download streams; its text too when at most `keepTextBytes`
   * bytes. null when the service answers 404 (no code uploaded yet).
   */
  async downloadPolicyDigest(policy: Policy, keepTextBytes: number): Promise<StreamedCode | null> {
    const link = policy.links.download ?? `/api/v2/policies/${idSegment('policy', policy.id)}/download`;
    return fetchDownloadDigest(this.transport, this.signal, new URL(link, this.options.baseUrl).href, keepTextBytes);
  }

  async updatePolicy(policy: PolicyRef, input: UpdatePolicyInput): Promise<Policy> {
    return this.one('PATCH', `/policies/${idSegment('policy', policy.id)}`, updatePolicyBody(policy, input, this.dialect), this.parsePolicy);
  }

  async deletePolicy(id: string): Promise<void> {
    return this.remove(`/policies/${idSegment('policy', id)}`);
  }

  async listAgentPools(organization: string, options: ListAgentPoolsOptions = {}): Promise<AgentPoolList> {
    const params: Params = [];
    if (options.q !== undefined) params.push(['q', options.q]);
    if (options.sort !== undefined) params.push(['sort', options.sort]);
    if (options.allowedWorkspaceName !== undefined) params.push(['filter[allowed_workspaces][name]', options.allowedWorkspaceName]);
    if (options.includeWorkspaces === true) params.push(['include', 'workspaces']);
    const pages = await listAll(this.transport, this.signal, `/organizations/${seg(organization)}/agent-pools`, params, parseAgentPool);
    const pools = pages.flatMap((page) => page.items);
    const counts = field(pages[0]?.meta, 'status-counts');
    return { pools, statusCounts: { total: int(field(counts, 'total'), pools.length), matching: int(field(counts, 'matching'), pools.length) } };
  }

  async getAgentPool(id: string, options: { includeWorkspaces?: boolean } = {}): Promise<AgentPool> {
    const query = options.includeWorkspaces === true ? queryString([['include', 'workspaces']]) : '';
    return this.one('GET', `/agent-pools/${idSegment('agent-pool', id)}${query}`, undefined, parseAgentPool);
  }

  /** `owns`: whether a pool of the name found after a lost answer is this create's; without it none is (as `createPolicy`). */
  createAgentPool(organization: string, input: CreateAgentPoolInput, owns: (found: AgentPool) => boolean = () => false): Promise<AgentPool> {
    return this.transport.create({
      request: { method: 'POST', url: this.transport.url(`/organizations/${seg(organization)}/agent-pools`), json: createAgentPoolBody(input) },
      read: (response) => readWith(response, (body) => parseAgentPool(primary(body))),
      find: async () => (await this.listAgentPools(organization, { q: input.name })).pools.find((p) => p.name === input.name && owns(p)) ?? null,
    }, this.signal);
  }

  async updateAgentPool(id: string, input: UpdateAgentPoolInput): Promise<AgentPool> {
    return this.one('PATCH', `/agent-pools/${idSegment('agent-pool', id)}`, updateAgentPoolBody(input), parseAgentPool);
  }

  async deleteAgentPool(id: string): Promise<void> {
    return this.remove(`/agent-pools/${idSegment('agent-pool', id)}`);
  }

  async listAgents(poolId: string, options: { lastPingSince?: string } = {}): Promise<Agent[]> {
    const params: Params = options.lastPingSince === undefined ? [] : [['filter[last-ping-since]', options.lastPingSince]];
    const pages = await listAll(this.transport, this.signal, `/agent-pools/${idSegment('agent-pool', poolId)}/agents`, params, parseAgent);
    return pages.flatMap((page) => page.items);
  }

  async getAgent(id: string): Promise<Agent> {
    return this.one('GET', `/agents/${idSegment('agent', id)}`, undefined, parseAgent);
  }

  async deleteAgent(id: string): Promise<void> {
    return this.remove(`/agents/${idSegment('agent', id)}`);
  }

  async listAgentTokens(poolId: string): Promise<AgentToken[]> {
    const pages = await listAll(this.transport, this.signal, `/agent-pools/${idSegment('agent-pool', poolId)}/authentication-tokens`, [], parseAgentToken);
    return pages.flatMap((page) => page.items);
  }

  async getAgentToken(id: string): Promise<AgentToken> {
    return this.one('GET', `/authentication-tokens/${idSegment('agent-token', id)}`, undefined, parseAgentToken);
  }

  /** The body go-tfe's `AgentTokenCreateOptions` sends. */
  createAgentToken(poolId: string, description: string, known: readonly string[]): Promise<MadeAgentToken> {
    const path = `/agent-pools/${idSegment('agent-pool', poolId)}/authentication-tokens`;
    return this.transport.create({
      request: { method: 'POST', url: this.transport.url(path), json: { data: { type: 'agent-tokens', attributes: { description } } } },
      read: (response) => readWith(response, (body) => {
        const made = parseMadeAgentToken(primary(body));
        learnSecrets([made.token]);
        return made;
      }),
      // The text of a token the lost answer made is lost with it: that token is deleted, and the create sent again.
      find: async () => {
        const lost = (await this.listAgentTokens(poolId)).filter((token) => token.description === description && !known.includes(token.id));
        for (const token of lost) await this.deleteAgentToken(token.id);
        return null;
      },
    }, this.signal);
  }

  async deleteAgentToken(id: string): Promise<void> {
    return this.remove(`/authentication-tokens/${idSegment('agent-token', id)}`);
  }

  listPolicySets(organization: string, options?: ListPolicySetsOptions): Promise<PolicySet[]> {
    return this.sets.listPolicySets(organization, options);
  }

  getPolicySet(id: string, options?: { include?: readonly PolicySetInclude[] }): Promise<PolicySet> {
    return this.sets.getPolicySet(id, options);
  }

  createPolicySet(organization: string, input: CreatePolicySetInput, owns?: (found: PolicySet) => boolean): Promise<PolicySet> {
    return this.sets.createPolicySet(organization, input, owns);
  }

  updatePolicySet(id: string, input: UpdatePolicySetInput): Promise<PolicySet> {
    return this.sets.updatePolicySet(id, input);
  }

  deletePolicySet(id: string): Promise<void> {
    return this.sets.deletePolicySet(id);
  }

  addToPolicySet(setId: string, relationship: PolicySetRelationship, ids: readonly string[]): Promise<void> {
    return this.sets.addToPolicySet(setId, relationship, ids);
  }

  addTagSelectors(setId: string, selectors: readonly TagSelector[]): Promise<void> {
    return this.sets.addTagSelectors(setId, selectors);
  }

  removeTagSelectors(setId: string, selectors: readonly TagSelector[]): Promise<void> {
    return this.sets.removeTagSelectors(setId, selectors);
  }

  removeFromPolicySet(setId: string, relationship: PolicySetRelationship, ids: readonly string[]): Promise<void> {
    return this.sets.removeFromPolicySet(setId, relationship, ids);
  }

  createPolicySetVersion(setId: string): Promise<PolicySetVersion> {
    return this.sets.createPolicySetVersion(setId);
  }

  uploadPolicySetVersion(version: PolicySetVersion, archive: Uint8Array | StreamedBody): Promise<void> {
    return this.sets.uploadPolicySetVersion(version, archive);
  }

  getPolicySetVersion(id: string): Promise<PolicySetVersion> {
    return this.sets.getPolicySetVersion(id);
  }

  listPolicySetParameters(setId: string): Promise<PolicySetParameter[]> {
    return this.sets.listPolicySetParameters(setId);
  }

  createPolicySetParameter(setId: string, input: CreatePolicySetParameterInput): Promise<PolicySetParameter> {
    return this.sets.createPolicySetParameter(setId, input);
  }

  updatePolicySetParameter(setId: string, parameterId: string, input: UpdatePolicySetParameterInput): Promise<PolicySetParameter> {
    return this.sets.updatePolicySetParameter(setId, parameterId, input);
  }

  deletePolicySetParameter(setId: string, parameterId: string): Promise<void> {
    return this.sets.deletePolicySetParameter(setId, parameterId);
  }

  listWorkspaces(organization: string, options?: ListWorkspacesOptions): Promise<Workspace[]> {
    return this.sets.listWorkspaces(organization, options);
  }

  listProjects(organization: string, options?: ListProjectsOptions): Promise<Project[]> {
    return this.sets.listProjects(organization, options);
  }

  getEntitlements(organization: string): Promise<Entitlements> {
    return this.sets.getEntitlements(organization);
  }

  private remove(path: string, json?: unknown): Promise<void> {
    return deleteDone(this.transport, this.signal, this.options.logger, path, json);
  }

  /** One request answered by a single-resource document. */
  private one<T>(method: HttpMethod, path: string, json: unknown, parse: (resource: unknown) => T): Promise<T> {
    return sendOne(this.transport, this.signal, method, path, json, (body) => parse(primary(body)));
  }
}

/** A path segment that is not an id (an organization's name), percent-encoded. */
function seg(value: string): string {
  return encodeURIComponent(value);
}
