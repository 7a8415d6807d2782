/**
 * Ingestion of a policy set version's archive, as the service does it before a version is `ready`: the config file at
 * the archive's root (`sentinel.hcl`, or in the document's words `native.hcl`, for the native kind; `policies.hcl` for
 * opa) parsed with the vendor's HCL library (@cdktf/hcl2json: HashiCorp's hcl, compiled to WebAssembly), and every
 * local `source` of a `policy`, an `import "module"` and a `module` block found as a file in the archive, and the file
 * checked against its schema (policy-set-config-schema.ts, as --validate checks it: unknown blocks and attributes, levels,
 * parameters no policy declares). Anything else ends `errored` with an `error-message` naming the file, line and
 * column, block and source.
 */
import { posix } from 'node:path';
import { HclSyntaxError, parseHcl } from '../hcl.js';
import type { NativeKindName } from '../model.js';
import { checkSetConfigSchema, configFacts, diagnosticLines, syntaxDiagnostic } from '../policy-set-config-schema.js';
import type { RecordKind } from './records.js';
import { readTarGz, type TarEntry } from './tar.js';
import { errorMessage } from '../errors.js';

export interface Ingested {
  status: 'ready' | 'errored';
  errorMessage: string | null;
  policyCount: number;
  /** Each policy the config file declares with its `enforcement_level` (advisory when absent), in its order. */
  policies: Array<{ name: string; level: string }>;
}

type Hcl = Record<string, unknown>;

/** The config file names a kind's archive may hold at its root, in the order looked for. */
export function configNames(kind: RecordKind, nativeKind: NativeKindName): string[] {
  if (kind === 'opa') return ['policies.hcl'];
  if (kind === 'tfpolicy') return [];
  return nativeKind === 'sentinel' ? ['sentinel.hcl'] : ['native.hcl', 'sentinel.hcl'];
}

export async function ingest(archive: Buffer, kind: RecordKind, nativeKind: NativeKindName): Promise<Ingested> {
  try {
    const policies = await check(readTarGz(archive), kind, nativeKind);
    return { status: 'ready', errorMessage: null, policyCount: policies.length, policies };
  } catch (error) {
    return { status: 'errored', errorMessage: errorMessage(error), policyCount: 0, policies: [] };
  }
}

/** The policies the config file declares, with their levels; throws an Error naming the first problem. */
async function check(entries: TarEntry[], kind: RecordKind, nativeKind: NativeKindName): Promise<Array<{ name: string; level: string }>> {
  const names = configNames(kind, nativeKind);
  if (names.length === 0) return [];
  const files = new Map(entries.filter((entry) => entry.type === 'file').map((entry) => [entry.path, entry.data]));
  const name = names.find((candidate) => files.has(candidate));
  if (name === undefined) throw new Error(`no ${names.join(' or ')} at the root of the policy set version's archive`);
  const text = files.get(name)?.toString('utf8') ?? '';
  const config = await readConfig(name, text);
  const read = (source: string): string | null => files.get(posix.normalize(source).replace(/^\.\//, ''))?.toString('utf8') ?? null;
  const diagnostics = checkSetConfigSchema(text, kind === 'opa' ? 'opa' : 'native', configFacts(config, read));
  if (diagnostics.length > 0) throw new Error(diagnosticLines(name, diagnostics).join('; '));
  const policies = blocks(config.policy);
  for (const [policy, body] of policies) {
    if (kind === 'opa') checkOpaPolicy(name, policy, body);
    else checkSource(name, `policy "${policy}"`, body, files);
  }
  if (kind !== 'opa') {
    for (const [module, body] of blocks((config.import as Hcl | undefined)?.module)) checkSource(name, `import "module" "${module}"`, body, files);
    for (const [module, body] of blocks(config.module)) checkSource(name, `module "${module}"`, body, files);
  }
  return policies.map(([policy, body]) => ({ name: policy, level: typeof body['enforcement_level'] === 'string' ? body['enforcement_level'] : 'advisory' }));
}

async function readConfig(file: string, text: string): Promise<Hcl> {
  try {
    return await parseHcl(file, text);
  } catch (error) {
    if (!(error instanceof HclSyntaxError)) throw error;
    const { first, more } = syntaxDiagnostic(file, error.message);
    throw new Error(`${file} is not valid HCL: ${first}${more > 0 ? ` (${more} more diagnostic${more === 1 ? '' : 's'} follow from it)` : ''}`);
  }
}

/** Labelled blocks as hcl2json gives them: `{ label: [ body ] }`. */
function blocks(value: unknown): Array<[string, Hcl]> {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value as Record<string, unknown>).map(([label, bodies]) => [label, (Array.isArray(bodies) ? bodies[0] : bodies) as Hcl]);
}

function checkSource(file: string, block: string, body: Hcl, files: Map<string, Buffer>): void {
  const source = body.source;
  if (typeof source !== 'string' || source === '') throw new Error(`${file}: ${block} has no source`);
  if (/^https?:\/\//i.test(source)) return;
  const path = posix.normalize(source).replace(/^\.\//, '');
  if (source.startsWith('/') || path === '..' || path.startsWith('../')) throw new Error(`${file}: ${block} source "${source}" is outside the policy set`);
  if (!files.has(path)) throw new Error(`${file}: ${block} source "${source}" is not in the policy set version's archive`);
}

function checkOpaPolicy(file: string, policy: string, body: Hcl): void {
  if (typeof body.query !== 'string' || body.query.trim() === '') throw new Error(`${file}: policy "${policy}" has no query`);
}
