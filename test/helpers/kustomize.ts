/**
 * The manifests under deploy/ as `kubectl apply -k` would send them, for tests (kustomize itself is not installed):
 * a kustomization's `resources` (files, or folders holding a kustomization), `components`, `configMapGenerator`
 * (files, `KEY=PATH` included; `behavior` create, replace or merge), `patches` (strategic merge patches, from a file
 * or inline, each finding its object by its own apiVersion, kind and name) and `images`. A key, a patch or a
 * directive this reader does not know fails the build rather than being left out. Generated ConfigMaps keep their plain name: kustomize would add a hash of the content and rename every
 * reference to it, which is what makes a config change roll the pod.
 *
 * Each object is then checked against Kubernetes' published OpenAPI schemas, compiled with ajv by the npm package
 * kubernetes-models (@kubernetes-models/prometheus-operator for the ServiceMonitor), and a pod spec against the
 * Pod Security Standard "restricted".
 */
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { parseAllDocuments, parse } from 'yaml';

/** One Kubernetes object, as read from YAML. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

interface Kustomization {
  resources?: string[];
  components?: string[];
  configMapGenerator?: Generator[];
  patches?: Array<{ path?: string; patch?: string }>;
  images?: Array<{ name: string; newName?: string; newTag?: string }>;
}

interface Generator {
  name: string;
  behavior?: 'create' | 'replace' | 'merge';
  files?: string[];
  options?: { labels?: Record<string, string> };
}

const KNOWN = new Set(['apiVersion', 'kind', 'resources', 'components', 'configMapGenerator', 'patches', 'images']);
const KNOWN_GENERATOR = new Set(['name', 'behavior', 'files', 'options']);
const KNOWN_PATCH = new Set(['path', 'patch']);

/** `what`'s keys that are not in `known`, as an error naming `file`; null when there are none. */
function unknownKeys(file: string, what: string, value: object, known: Set<string>): Error | null {
  const unknown = Object.keys(value).filter((key) => !known.has(key));
  return unknown.length === 0 ? null : new Error(`${file}: this test's reader of kustomizations does not know ${what} ${unknown.join(', ')}; teach test/helpers/kustomize.ts`);
}

/** The objects the kustomization in `dir` builds. */
export async function buildKustomization(dir: string): Promise<Manifest[]> {
  const file = join(dir, 'kustomization.yaml');
  const k = parse(await readFile(file, 'utf8')) as Kustomization & Record<string, unknown>;
  const problem = unknownKeys(file, 'the keys', k, KNOWN);
  if (problem !== null) throw problem;
  const out: Manifest[] = [];
  for (const entry of [...(k.resources ?? []), ...(k.components ?? [])]) {
    const path = join(dir, entry);
    if ((await stat(path)).isDirectory()) {
      out.push(...(await buildKustomization(path)));
      continue;
    }
    out.push(...readDocuments(path, await readFile(path, 'utf8')));
  }
  for (const generator of k.configMapGenerator ?? []) await generate(file, dir, generator, out);
  for (const entry of k.patches ?? []) {
    const problem = unknownKeys(file, 'in patches', entry, KNOWN_PATCH);
    if (problem !== null) throw problem;
    const [where, text] = entry.path !== undefined ? [join(dir, entry.path), await readFile(join(dir, entry.path), 'utf8')] : [file, entry.patch ?? ''];
    for (const patch of readDocuments(where, text)) applyPatch(where, patch, out);
  }
  for (const image of k.images ?? []) {
    for (const container of out.flatMap((m) => podSpec(m)?.containers ?? [])) {
      if (container.image === image.name || container.image?.startsWith(`${image.name}:`)) {
        container.image = `${image.newName ?? image.name}:${image.newTag ?? 'latest'}`;
      }
    }
  }
  return out;
}

/** The YAML documents of `text` (read from `where`), empty ones left out. */
function readDocuments(where: string, text: string): Manifest[] {
  const out: Manifest[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`${where}: ${doc.errors[0]?.message}`);
    const value = doc.toJS() as Manifest | null;
    if (value !== null) out.push(value);
  }
  return out;
}

/** The ConfigMap of `generator`, added to `out` (create), in place of the one of that name (replace), or over it (merge). */
async function generate(file: string, dir: string, generator: Generator, out: Manifest[]): Promise<void> {
  const problem = unknownKeys(file, `in configMapGenerator ${generator.name}`, generator, KNOWN_GENERATOR);
  if (problem !== null) throw problem;
  const data: Record<string, string> = {};
  for (const entry of generator.files ?? []) {
    const [key, path] = entry.includes('=') ? (entry.split('=', 2) as [string, string]) : [basename(entry), entry];
    data[key] = await readFile(join(dir, path), 'utf8');
  }
  const labels = generator.options?.labels;
  const made: Manifest = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: generator.name, ...(labels === undefined ? {} : { labels }) }, data };
  const behavior = generator.behavior ?? 'create';
  const at = out.findIndex((m) => m.kind === 'ConfigMap' && m.metadata.name === generator.name);
  if (behavior === 'create') {
    if (at !== -1) throw new Error(`${file}: configMapGenerator ${generator.name} creates a ConfigMap that the resources already hold: use behavior replace or merge`);
    out.push(made);
  } else if (at === -1) {
    throw new Error(`${file}: configMapGenerator ${generator.name} has behavior ${behavior}, but no ConfigMap of that name comes from the resources`);
  } else {
    out[at] = behavior === 'replace' ? made : (strategicMerge(out[at], made, 'ConfigMap') as Manifest);
  }
}

/** Applies one strategic merge patch to the object of `out` with its apiVersion, kind and name (there must be one). */
function applyPatch(where: string, patch: Manifest, out: Manifest[]): void {
  if (Array.isArray(patch)) throw new Error(`${where}: a JSON 6902 patch; this test's reader of kustomizations knows only strategic merge patches: teach test/helpers/kustomize.ts`);
  const at = out.findIndex((m) => m.apiVersion === patch.apiVersion && m.kind === patch.kind && m.metadata.name === patch.metadata?.name);
  if (at === -1) throw new Error(`${where}: the patch of ${patch.apiVersion} ${patch.kind} ${patch.metadata?.name} finds no such object among the resources`);
  out[at] = strategicMerge(out[at], patch, `${patch.kind} ${patch.metadata.name}`) as Manifest;
}

/**
 * Lists that a strategic merge patch merges item by item, by the field Kubernetes names as their `patchMergeKey`
 * (a container's ports by containerPort, a Service's by port); every other list is replaced whole.
 */
const MERGE_KEYS: Record<string, (item: Record<string, unknown>) => string> = {
  containers: () => 'name',
  initContainers: () => 'name',
  volumes: () => 'name',
  env: () => 'name',
  imagePullSecrets: () => 'name',
  volumeMounts: () => 'mountPath',
  ports: (item) => ('containerPort' in item ? 'containerPort' : 'port'),
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `patch` over `base` as a strategic merge patch does it (kubernetes.io/docs/tasks/manage-kubernetes-objects/update-api-object-kubectl-patch):
 * objects merge field by field, null deletes a field, lists in MERGE_KEYS merge by their key, other lists and values
 * are replaced. A `$patch`-style directive fails: this reader does not know them.
 */
function strategicMerge(base: unknown, patch: unknown, where: string, field = ''): unknown {
  if (Array.isArray(patch)) {
    const keyOf = MERGE_KEYS[field];
    if (keyOf === undefined || !Array.isArray(base) || !patch.every(isObject)) return structuredClone(patch);
    const merged = structuredClone(base) as unknown[];
    for (const item of patch) {
      const key = keyOf(item);
      const at = merged.findIndex((old) => isObject(old) && old[key] === item[key]);
      if (at === -1) merged.push(strategicMerge(undefined, item, where));
      else merged[at] = strategicMerge(merged[at], item, where);
    }
    return merged;
  }
  if (!isObject(patch)) return patch;
  const merged: Record<string, unknown> = isObject(base) ? { ...base } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) throw new Error(`${where}: the patch's directive ${key}; this test's reader of kustomizations does not know it: teach test/helpers/kustomize.ts`);
    if (value === null) delete merged[key];
    else merged[key] = strategicMerge(merged[key], value, where, key);
  }
  return merged;
}

type Validating = new (data: never) => { validate(): void };
const MODELS: Record<string, Validating> = {
  'apps/v1/Deployment': Deployment,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
};

/** What the schema of the object's apiVersion and kind says is wrong with it; [] when it is valid. */
export function schemaProblems(manifest: Manifest): string[] {
  const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
  if (Model === undefined) return [`${manifest.kind} ${manifest.metadata?.name}: no schema here for ${manifest.apiVersion} ${manifest.kind}; add its model to test/helpers/kustomize.ts`];
  try {
    new Model(structuredClone(manifest) as never).validate();
    return [];
  } catch (error) {
    return [`${manifest.kind} ${manifest.metadata.name}: ${(error as Error).message}`];
  }
}

export interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
  seccompProfile?: { type: string };
  procMount?: string;
}

export interface Container {
  name: string;
  image?: string;
  ports?: Array<{ name?: string; containerPort: number; hostPort?: number }>;
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } }>;
  securityContext?: SecurityContext;
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
  [field: string]: unknown;
}

export interface PodSpec {
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  securityContext?: SecurityContext & { fsGroup?: number };
  containers: Container[];
  initContainers?: Container[];
  volumes?: Array<{ name: string; [type: string]: unknown }>;
  [field: string]: unknown;
}

/** The pod template of a Deployment (or a bare Pod's spec); undefined for other kinds. */
export function podSpec(manifest: Manifest): PodSpec | undefined {
  if (manifest.kind === 'Pod') return manifest['spec'] as PodSpec;
  const spec = manifest['spec'] as { template?: { spec?: PodSpec } } | undefined;
  return ['Deployment', 'StatefulSet', 'DaemonSet', 'Job'].includes(manifest.kind) ? spec?.template?.spec : undefined;
}

/** Volume types the restricted profile allows. */
const RESTRICTED_VOLUMES = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret']);

/**
 * Where `pod` breaks the Pod Security Standard "restricted" (kubernetes.io/docs/concepts/security/pod-security-standards),
 * its baseline rules included, or this project's own rule of a read-only root file system; [] when it passes.
 */
export function restrictedProblems(pod: PodSpec): string[] {
  const problems: string[] = [];
  const podContext = pod.securityContext ?? {};
  for (const field of ['hostNetwork', 'hostPID', 'hostIPC'] as const) if (pod[field] === true) problems.push(`${field} is true`);
  for (const volume of pod.volumes ?? []) {
    const type = Object.keys(volume).find((key) => key !== 'name');
    if (type === undefined || !RESTRICTED_VOLUMES.has(type)) problems.push(`volume ${volume.name} is of type ${type}`);
  }
  if (podContext.runAsUser === 0) problems.push('the pod runs as uid 0');
  for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
    const context = container.securityContext ?? {};
    const where = `container ${container.name}`;
    if (context.privileged === true) problems.push(`${where} is privileged`);
    if (context.allowPrivilegeEscalation !== false) problems.push(`${where}: allowPrivilegeEscalation is not false`);
    if ((context.runAsNonRoot ?? podContext.runAsNonRoot) !== true) problems.push(`${where}: runAsNonRoot is not true`);
    if (context.runAsUser === 0) problems.push(`${where} runs as uid 0`);
    const seccomp = (context.seccompProfile ?? podContext.seccompProfile)?.type;
    if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') problems.push(`${where}: seccompProfile.type is ${seccomp}, not RuntimeDefault or Localhost`);
    if (!(context.capabilities?.drop ?? []).includes('ALL')) problems.push(`${where}: capabilities.drop does not hold ALL`);
    const added = (context.capabilities?.add ?? []).filter((c) => c !== 'NET_BIND_SERVICE');
    if (added.length > 0) problems.push(`${where} adds capabilities ${added.join(', ')}`);
    if (context.procMount !== undefined && context.procMount !== 'Default') problems.push(`${where}: procMount is ${context.procMount}`);
    if ((container.ports ?? []).some((p) => (p.hostPort ?? 0) !== 0)) problems.push(`${where} uses a host port`);
    if (context.readOnlyRootFilesystem !== true) problems.push(`${where}: readOnlyRootFilesystem is not true`);
  }
  return problems;
}

/** The object of `kind` named `name`; fails the test, listing what there is, when there is none. */
export function findManifest(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  assert.ok(found, `no ${kind} ${name} among ${manifests.map((m) => `${m.kind} ${m.metadata.name}`).join(', ')}`);
  return found;
}
