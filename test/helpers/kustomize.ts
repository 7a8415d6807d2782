/**
 * The manifests under deploy/ as `kubectl apply -k` would send them, for tests (kustomize itself is not installed):
 * a kustomization's `resources` (files, or folders holding a kustomization), `components`, `configMapGenerator`
 * (files, `KEY=PATH` included) and `images`. A key this reader does not know fails the build rather than being
 * left out. Generated ConfigMaps keep their plain name: kustomize would add a hash of the content and rename every
 * reference to it, which is what makes a config change roll the pod.
 *
 * Each object is then checked against Kubernetes' published OpenAPI schemas, compiled with ajv by the npm package
 * kubernetes-models (@kubernetes-models/prometheus-operator for the ServiceMonitor), and a pod spec against the
 * Pod Security Standard "restricted".
 */
import { readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
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
  configMapGenerator?: Array<{ name: string; files?: string[]; options?: { labels?: Record<string, string> } }>;
  images?: Array<{ name: string; newName?: string; newTag?: string }>;
}

const KNOWN = new Set(['apiVersion', 'kind', 'resources', 'components', 'configMapGenerator', 'images']);

/** The objects the kustomization in `dir` builds. */
export async function buildKustomization(dir: string): Promise<Manifest[]> {
  const file = join(dir, 'kustomization.yaml');
  const k = parse(await readFile(file, 'utf8')) as Kustomization & Record<string, unknown>;
  const unknown = Object.keys(k).filter((key) => !KNOWN.has(key));
  if (unknown.length > 0) throw new Error(`${file}: this test's reader of kustomizations does not know ${unknown.join(', ')}; teach test/helpers/kustomize.ts`);
  const out: Manifest[] = [];
  for (const entry of [...(k.resources ?? []), ...(k.components ?? [])]) {
    const path = join(dir, entry);
    if ((await stat(path)).isDirectory()) {
      out.push(...(await buildKustomization(path)));
      continue;
    }
    for (const doc of parseAllDocuments(await readFile(path, 'utf8'))) {
      if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]?.message}`);
      const value = doc.toJS() as Manifest | null;
      if (value !== null) out.push(value);
    }
  }
  for (const generator of k.configMapGenerator ?? []) {
    const data: Record<string, string> = {};
    for (const entry of generator.files ?? []) {
      const [key, path] = entry.includes('=') ? (entry.split('=', 2) as [string, string]) : [basename(entry), entry];
      data[key] = await readFile(join(dir, path), 'utf8');
    }
    const labels = generator.options?.labels;
    out.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: generator.name, ...(labels === undefined ? {} : { labels }) }, data });
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

type Validating = new (data: never) => { validate(): void };
const MODELS: Record<string, Validating> = {
  'apps/v1/Deployment': Deployment,
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
