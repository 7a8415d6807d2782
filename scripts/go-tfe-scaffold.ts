/**
 * The emulator as go-tfe's integration tests need it (docs/development.md, "go-tfe's tests against the emulator"): the
 * hosted dialect behind a small front that answers what those tests call to set themselves up and the API has none
 * of (creating and deleting organizations, workspaces and projects; the admin API's feature sets, subscription and
 * Sentinel versions). Every other request goes to the emulator unchanged, the test's organization name mapped onto one
 * the seed holds. It prints `{"address": …, "token": …}` for TFE_ADDRESS and TFE_TOKEN, then serves until stopped.
 *
 *   node --import tsx scripts/go-tfe-scaffold.ts [--port N]
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEmulator, type SeedOrganization } from '../src/emulator/index.js';

const TOKEN = 'go-tfe-token';
const ORGANIZATIONS = 60;
const pad = (n: number): string => String(n).padStart(3, '0');

/** Organizations the tests' ones map onto, each with workspaces and projects to hand out. */
function seedOrganizations(): SeedOrganization[] {
  return Array.from({ length: ORGANIZATIONS }, (_, i) => ({
    name: `gotfe${pad(i)}`,
    workspaces: Array.from({ length: 30 }, (_, w) => ({ id: `ws-Gotfe${pad(i)}W${pad(w)}xxxx`, name: `gotfe${i}-ws${w}` })),
    projects: Array.from({ length: 15 }, (_, p) => ({ id: `prj-Gotfe${pad(i)}P${pad(p)}xxxx`, name: `gotfe${i}-prj${p}` })),
  }));
}

interface Mapping {
  seeded: SeedOrganization[];
  /** The test's organization name → the seeded one, and back. */
  toSeeded: Map<string, string>;
  toTest: Map<string, string>;
  /** Workspaces and projects handed out: id → the name the test gave. */
  names: Map<string, string>;
  handedOut: Map<string, number>;
}

async function bytesOf(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, status: number, document?: unknown): void {
  res.writeHead(status, { 'content-type': 'application/vnd.api+json' });
  res.end(document === undefined ? '' : JSON.stringify(document));
}

const nameIn = (body: Buffer): string => (JSON.parse(body.toString('utf8')) as { data: { attributes: { name: string } } }).data.attributes.name;

/** Answers a set-up request the API has no endpoint for; false when the request is the emulator's. */
function setUp(req: IncomingMessage, path: string, body: Buffer, res: ServerResponse, m: Mapping): boolean {
  const method = req.method ?? 'GET';
  if (method === 'POST' && path === '/api/v2/organizations') {
    const name = nameIn(body);
    const seeded = m.seeded[m.toSeeded.size]?.name;
    if (seeded === undefined) throw new Error('every seeded organization is taken: raise ORGANIZATIONS');
    m.toSeeded.set(name, seeded);
    m.toTest.set(seeded, name);
    send(res, 201, { data: { id: name, type: 'organizations', attributes: { name, email: 'go-tfe@example.com' } } });
    return true;
  }
  if (method === 'DELETE' && /^\/api\/v2\/(organizations|workspaces|projects|admin\/sentinel-versions)\/[^/]+$/.test(path)) {
    send(res, 204);
    return true;
  }
  if (path === '/api/v2/admin/feature-sets') {
    send(res, 200, { data: [{ id: 'fs-business', type: 'feature-sets', attributes: { name: 'Business' } }], meta: { pagination: { 'current-page': 1, 'total-pages': 1, 'total-count': 1 } } });
    return true;
  }
  if (/^\/api\/v2\/admin\/organizations\/[^/]+\/subscription$/.test(path)) {
    send(res, 201, { data: { id: 'sub-gotfe', type: 'subscriptions', attributes: {} } });
    return true;
  }
  if (method === 'POST' && path === '/api/v2/admin/sentinel-versions') {
    const attributes = (JSON.parse(body.toString('utf8')) as { data: { attributes: { version: string } } }).data.attributes;
    send(res, 201, { data: { id: `tool-${attributes.version}`, type: 'sentinel-versions', attributes } });
    return true;
  }
  const created = method === 'POST' ? /^\/api\/v2\/organizations\/([^/]+)\/(workspaces|projects)$/.exec(path) : null;
  if (created === null) return false;
  handOut(decodeURIComponent(created[1]!), created[2] as 'workspaces' | 'projects', nameIn(body), res, m);
  return true;
}

/** The next seeded workspace or project of the organization, answered under the name the test gave it. */
function handOut(organization: string, type: 'workspaces' | 'projects', name: string, res: ServerResponse, m: Mapping): void {
  const seeded = m.seeded.find((org) => org.name === m.toSeeded.get(organization));
  const key = `${seeded?.name}/${type}`;
  const index = m.handedOut.get(key) ?? 0;
  const id = (type === 'workspaces' ? seeded?.workspaces : seeded?.projects)?.[index]?.id;
  if (id === undefined) return send(res, 404, { errors: [{ status: '404', title: 'not found' }] });
  m.handedOut.set(key, index + 1);
  m.names.set(id, name);
  send(res, 201, { data: { id, type, attributes: { name }, relationships: { organization: { data: { id: organization, type: 'organizations' } } } } });
}

/** An answer of the emulator in the test's names: its organizations and the names it gave workspaces and projects. */
function inTestNames(text: string, m: Mapping): string {
  let out = text;
  for (const [seeded, name] of m.toTest) out = out.split(`"${seeded}"`).join(`"${name}"`);
  for (const [id, name] of m.names) out = out.replace(new RegExp(`("id":"${id}","type":"(?:workspaces|projects)","attributes":\\{"name":)"[^"]*"`, 'g'), `$1"${name}"`);
  return out;
}

export async function startScaffold(port: number): Promise<{ address: string; token: string; close(): Promise<void> }> {
  const m: Mapping = { seeded: seedOrganizations(), toSeeded: new Map(), toTest: new Map(), names: new Map(), handedOut: new Map() };
  const emulator = await startEmulator({ port: 0, seed: { token: TOKEN, rateLimit: 0, nativeKind: 'sentinel', organizations: m.seeded } });
  const upstream = new URL(emulator.origin);
  let address = '';
  const server = createServer((req, res) => void (async () => {
    const url = new URL(req.url ?? '/', 'http://scaffold');
    const body = await bytesOf(req);
    if (setUp(req, url.pathname, body, res, m)) return;
    const path = (req.url ?? '/').replace(/^\/api\/v2\/organizations\/([^/?]+)/, (all, name: string) => `/api/v2/organizations/${m.toSeeded.get(decodeURIComponent(name)) ?? name}`);
    const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path, headers: { ...req.headers, host: upstream.host, 'content-length': body.length } }, (answer) => void (async () => {
      const text = inTestNames((await bytesOf(answer)).toString('utf8').split(emulator.origin).join(address), m);
      const headers = { ...answer.headers };
      delete headers['content-length'];
      res.writeHead(answer.statusCode ?? 502, headers);
      res.end(text);
    })());
    forward.on('error', () => res.destroy());
    forward.end(body);
  })().catch(() => res.destroy()));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { address, token: TOKEN, close: async () => { server.close(); server.closeAllConnections(); await emulator.close(); } };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--port');
  const scaffold = await startScaffold(at === -1 ? 0 : Number(process.argv[at + 1]));
  console.log(JSON.stringify({ address: scaffold.address, token: scaffold.token }));
}
