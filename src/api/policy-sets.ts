/**
 * The policy-set side of the API, one method per endpoint (see PolicySetApi in types.ts): sets and their
 * relationships, versions and their upload, parameters, and the organization's workspaces, projects and entitlement
 * set. It shares the client's transport, signal and word for the native kind; every id goes into a URL through
 * `idPath`, so only an id of its resource's shape ever does (ids.ts): another is a rejection before any request.
 */
import { wireKind, type TagSelector } from '../model.js';
import type { Logger } from '../logger.js';
import type { StreamedBody } from './http-types.js';
import { idSegment, type IdKind } from './ids.js';
import { field, primary } from './json-api.js';
import type { NativeKind } from './native-kind.js';
import { listAll, queryString } from './paginate.js';
import {
  createParameterBody, createPolicySetBody, relationshipBody, tagSelectorsBody, updateParameterBody, updatePolicySetBody,
} from './policy-set-bodies.js';
import {
  parseEntitlements, parsePolicySet, parsePolicySetParameter, parsePolicySetVersion, parseProject, parseTaggedWorkspace, parseWorkspace,
} from './policy-set-resources.js';
import { deleteDone, sendOne } from './exchanges.js';
import { isSuccess, readWith, successBody, apiError } from './responses.js';
import type { Transport } from './transport.js';
import type {
  CreatePolicySetInput, CreatePolicySetParameterInput, Entitlements, ListPolicySetsOptions, ListProjectsOptions,
  ListWorkspacesOptions, PolicySet, PolicySetApi, PolicySetInclude, PolicySetParameter, PolicySetRelationship, PolicySetVersion,
  Project, UpdatePolicySetInput, UpdatePolicySetParameterInput, Workspace,
} from './types.js';

type Params = Array<readonly [string, string]>;

/** `/policy-sets/polset-…`: each id checked against its shape, then percent-encoded. */
function idPath(...parts: Array<string | [IdKind, string]>): string {
  return parts.map((part) => (typeof part === 'string' ? part : `/${idSegment(part[0], part[1])}`)).join('');
}

function orgPath(organization: string, rest: string): string {
  return `/organizations/${encodeURIComponent(organization)}${rest}`;
}

export class PolicySetEndpoints implements PolicySetApi {
  constructor(
    private readonly transport: Transport,
    private readonly signal: AbortSignal | undefined,
    private readonly kind: NativeKind,
    private readonly logger: Logger,
  ) {}

  /** A set read from `document`, its kind word teaching the client the native kind's word. */
  private readonly parseSet = (resource: unknown, document?: unknown): PolicySet => {
    this.kind.observe(field(field(resource, 'attributes'), 'kind'));
    return parsePolicySet(resource, document);
  };

  async listPolicySets(organization: string, options: ListPolicySetsOptions = {}): Promise<PolicySet[]> {
    const params: Params = [];
    if (options.search !== undefined) params.push(['search[name]', options.search]);
    if (options.kind !== undefined) params.push(['filter[kind]', wireKind(options.kind, this.kind.word)]);
    if (options.versioned !== undefined) params.push(['filter[versioned]', String(options.versioned)]);
    if (options.include !== undefined && options.include.length > 0) params.push(['include', options.include.join(',')]);
    const pages = await listAll(this.transport, this.signal, orgPath(organization, '/policy-sets'), params, this.parseSet);
    return pages.flatMap((page) => page.items);
  }

  async getPolicySet(id: string, options: { include?: readonly PolicySetInclude[] } = {}): Promise<PolicySet> {
    const query = options.include !== undefined && options.include.length > 0 ? queryString([['include', options.include.join(',')]]) : '';
    return this.one('GET', `${idPath('/policy-sets', ['policy-set', id])}${query}`, undefined, (body) => this.parseSet(primary(body), body));
  }

  /**
   * A native set refused with a 422 naming its kind is sent again in the other word, once (native-kind.ts); refused
   * again for its kind, the word learned is put back and the first refusal is what the caller sees.
   */
  async createPolicySet(organization: string, input: CreatePolicySetInput, owns: (found: PolicySet) => boolean = () => false): Promise<PolicySet> {
    const send = () => this.sendCreateSet(organization, input, owns);
    return input.kind === 'native' ? this.kind.create(send) : send();
  }

  private sendCreateSet(organization: string, input: CreatePolicySetInput, owns: (found: PolicySet) => boolean): Promise<PolicySet> {
    return this.transport.create({
      request: { method: 'POST', url: this.transport.url(orgPath(organization, '/policy-sets')), json: createPolicySetBody(input, this.kind.word) },
      read: (response) => readWith(response, (body) => this.parseSet(primary(body), body)),
      find: async () => (await this.listPolicySets(organization, { search: input.name })).find((set) => set.name === input.name && owns(set)) ?? null,
    }, this.signal);
  }

  async updatePolicySet(id: string, input: UpdatePolicySetInput): Promise<PolicySet> {
    return this.one('PATCH', idPath('/policy-sets', ['policy-set', id]), updatePolicySetBody(input), (body) => this.parseSet(primary(body), body));
  }

  async deletePolicySet(id: string): Promise<void> {
    return this.remove(idPath('/policy-sets', ['policy-set', id]));
  }

  async addToPolicySet(setId: string, relationship: PolicySetRelationship, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const url = this.transport.url(idPath('/policy-sets', ['policy-set', setId], `/relationships/${relationship}`));
    successBody(await this.transport.send({ method: 'POST', url, json: relationshipBody(relationship, ids) }, this.signal));
  }

  async addTagSelectors(setId: string, selectors: readonly TagSelector[]): Promise<void> {
    if (selectors.length === 0) return;
    const url = this.transport.url(idPath('/policy-sets', ['policy-set', setId], '/tag-selectors'));
    successBody(await this.transport.send({ method: 'POST', url, json: tagSelectorsBody(selectors) }, this.signal));
  }

  async removeTagSelectors(setId: string, selectors: readonly TagSelector[]): Promise<void> {
    if (selectors.length === 0) return;
    return this.remove(idPath('/policy-sets', ['policy-set', setId], '/tag-selectors'), tagSelectorsBody(selectors));
  }

  async removeFromPolicySet(setId: string, relationship: PolicySetRelationship, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    return this.remove(idPath('/policy-sets', ['policy-set', setId], `/relationships/${relationship}`), relationshipBody(relationship, ids));
  }

  /**
   * No body, as the vendor's client sends it; the service answers 201. Retried like a read: a version whose answer was
   * lost stays `pending` and unused, and the one answered is the set's newest.
   */
  async createPolicySetVersion(setId: string): Promise<PolicySetVersion> {
    return this.one('POST', idPath('/policy-sets', ['policy-set', setId], '/versions'), undefined, (body) => parsePolicySetVersion(primary(body)));
  }

  /**
   * The archive goes to `links.upload` as it is, with no token whatever origin the link names (the vendor's client sends
   * none: the link carries its own authority), and no JSON:API media type. A relative link is read against the API's
   * base URL. The link itself never appears in a message or a log line.
   */
  async uploadPolicySetVersion(version: PolicySetVersion, archive: Uint8Array | StreamedBody): Promise<void> {
    if (version.uploadUrl === null) throw new Error(`policy set version ${version.id} has no upload link (links.upload): the service sent none`);
    const url = new URL(version.uploadUrl, this.transport.url('/')).href;
    // The link is a credential for an hour: messages and logs name the version instead.
    const shown = `/policy-set-versions/${version.id} (its upload link)`;
    const response = await this.transport.send({ method: 'PUT', url, bytes: archive, auth: false, shown }, this.signal);
    if (!isSuccess(response)) throw apiError(response);
  }

  async getPolicySetVersion(id: string): Promise<PolicySetVersion> {
    return this.one('GET', idPath('/policy-set-versions', ['policy-set-version', id]), undefined, (body) => parsePolicySetVersion(primary(body)));
  }

  async listPolicySetParameters(setId: string): Promise<PolicySetParameter[]> {
    const pages = await listAll(this.transport, this.signal, idPath('/policy-sets', ['policy-set', setId], '/parameters'), [], parsePolicySetParameter);
    return pages.flatMap((page) => page.items);
  }

  /** A lost answer is looked up by the key: a set holds one parameter of a key. */
  async createPolicySetParameter(setId: string, input: CreatePolicySetParameterInput): Promise<PolicySetParameter> {
    const path = idPath('/policy-sets', ['policy-set', setId], '/parameters');
    return this.transport.create({
      request: { method: 'POST', url: this.transport.url(path), json: createParameterBody(input) },
      read: (response) => readWith(response, (body) => parsePolicySetParameter(primary(body))),
      find: async () => (await this.listPolicySetParameters(setId)).find((parameter) => parameter.key === input.key) ?? null,
    }, this.signal);
  }

  async updatePolicySetParameter(setId: string, parameterId: string, input: UpdatePolicySetParameterInput): Promise<PolicySetParameter> {
    const path = idPath('/policy-sets', ['policy-set', setId], '/parameters', ['parameter', parameterId]);
    return this.one('PATCH', path, updateParameterBody(parameterId, input), (body) => parsePolicySetParameter(primary(body)));
  }

  async deletePolicySetParameter(setId: string, parameterId: string): Promise<void> {
    return this.remove(idPath('/policy-sets', ['policy-set', setId], '/parameters', ['parameter', parameterId]));
  }

  async listWorkspaces(organization: string, options: ListWorkspacesOptions = {}): Promise<Workspace[]> {
    const params: Params = [];
    if (options.search !== undefined) params.push(['search[name]', options.search]);
    if (options.wildcardName !== undefined) params.push(['search[wildcard-name]', options.wildcardName]);
    if (options.tags === true) params.push(['include', 'effective_tag_bindings']);
    const pages = await listAll(this.transport, this.signal, orgPath(organization, '/workspaces'), params, options.tags === true ? parseTaggedWorkspace : parseWorkspace);
    return pages.flatMap((page) => page.items);
  }

  async listProjects(organization: string, options: ListProjectsOptions = {}): Promise<Project[]> {
    const params: Params = options.names === undefined || options.names.length === 0 ? [] : [['filter[names]', options.names.join(',')]];
    const pages = await listAll(this.transport, this.signal, orgPath(organization, '/projects'), params, parseProject);
    return pages.flatMap((page) => page.items);
  }

  async getEntitlements(organization: string): Promise<Entitlements> {
    return this.one('GET', orgPath(organization, '/entitlement-set'), undefined, (body) => parseEntitlements(primary(body)));
  }

  private remove(path: string, json?: unknown): Promise<void> {
    return deleteDone(this.transport, this.signal, this.logger, path, json);
  }

  private one<T>(method: 'GET' | 'POST' | 'PATCH', path: string, json: unknown, read: (body: unknown) => T): Promise<T> {
    return sendOne(this.transport, this.signal, method, path, json, read);
  }
}
