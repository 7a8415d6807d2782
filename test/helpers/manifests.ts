/**
 * The manifests under deploy/ as `kubectl apply -k` sends them: built by the real kustomize, `kubectl kustomize`
 * (kubectl 1.27 or later carries kustomize v5; it builds offline). The tests find kubectl on the PATH and fail,
 * saying what is missing, when it is not there or its kustomize is older than v5 (Debian's kubernetes-client, 1.20,
 * knows no `components:`).
 *
 * Each object is then checked against Kubernetes' published OpenAPI schemas, compiled with ajv by the npm package
 * kubernetes-models (@kubernetes-models/prometheus-operator for the ServiceMonitor and the PrometheusRule), and a pod
 * spec against the Pod Security Standard "restricted".
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from './repo-root.js';

const run = promisify(execFile);

/** One Kubernetes object, as read from YAML. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** The oldest kustomize that builds deploy/ (`components:`, `labels:`, `patches:` from files). */
const KUSTOMIZE_MAJOR = 5;
const INSTALL = 'install kubectl 1.27 or later (https://kubernetes.io/docs/tasks/tools/; not Debian\'s kubernetes-client, 1.20)';

/** Where kubectl is found: the PATH of `env`, the process's by default. */
export interface KubectlOptions {
  env?: NodeJS.ProcessEnv;
}

/** kubectl's kustomize version (`v5.5.0`); fails saying what is missing when there is no kubectl or its kustomize is older than v5. */
export async function kustomizeVersion(options: KubectlOptions = {}): Promise<string> {
  let stdout: string;
  try {
    ({ stdout } = await run('kubectl', ['version', '--client', '--output=json'], { env: options.env ?? process.env }));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(missing ? `kubectl is not on the PATH: the deploy tests build deploy/ with \`kubectl kustomize\`; ${INSTALL}` : `kubectl version --client failed: ${(error as Error).message}`);
  }
  const version = (JSON.parse(stdout) as { kustomizeVersion?: string }).kustomizeVersion ?? '';
  const major = Number(/^v?(\d+)\./.exec(version)?.[1] ?? 0);
  if (major < KUSTOMIZE_MAJOR) throw new Error(`kubectl carries kustomize ${version || '(none)'}; the deploy tests need kustomize v${KUSTOMIZE_MAJOR} or later: ${INSTALL}`);
  return version;
}

/** The check of the process's own kubectl, made once. */
let checked: Promise<string> | undefined;

/**
 * What kubectl built from a folder of the repo's own (deploy/, test/fixtures/), which no test changes: built once per
 * process. A temp folder is built each time.
 */
const builtFromRepo = new Map<string, Promise<string>>();

async function kustomize(dir: string, env: NodeJS.ProcessEnv): Promise<string> {
  try {
    return (await run('kubectl', ['kustomize', dir], { env, maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (error) {
    throw new Error(`kubectl kustomize ${dir} failed: ${(error as { stderr?: string }).stderr?.trim() || (error as Error).message}`);
  }
}

/** The objects `kubectl kustomize dir` builds, in its order. */
export async function buildKustomization(dir: string, options: KubectlOptions = {}): Promise<Manifest[]> {
  let stdout: string;
  if (options.env === undefined) {
    await (checked ??= kustomizeVersion());
    const inRepo = !path.relative(REPO_ROOT, path.resolve(dir)).startsWith('..');
    if (!inRepo) stdout = await kustomize(dir, process.env);
    else {
      const key = path.resolve(dir);
      if (!builtFromRepo.has(key)) builtFromRepo.set(key, kustomize(dir, process.env));
      stdout = await builtFromRepo.get(key)!;
    }
  } else {
    await kustomizeVersion(options);
    stdout = await kustomize(dir, options.env);
  }
  const out: Manifest[] = [];
  for (const doc of parseAllDocuments(stdout)) {
    if (doc.errors.length > 0) throw new Error(`kubectl kustomize ${dir}: ${doc.errors[0]?.message}`);
    const value = doc.toJS() as Manifest | null;
    if (value !== null) out.push(value);
  }
  return out;
}

/** The suffix kustomize adds to a generated ConfigMap's or Secret's name: a hash of its content. */
export const GENERATED_SUFFIX = /-[a-z0-9]{10}$/;
const GENERATED_KINDS = new Set(['ConfigMap', 'Secret']);

/** `Kind name` of each object, a generated one's hash shown as `<hash>`: `ConfigMap policy-pool-sync-config-<hash>`. */
export function objectList(manifests: Manifest[]): string[] {
  return manifests.map((m) => `${m.kind} ${GENERATED_KINDS.has(m.kind) ? m.metadata.name.replace(GENERATED_SUFFIX, '-<hash>') : m.metadata.name}`);
}

type Validating = new (data: never) => { validate(): void };
const MODELS: Record<string, Validating> = {
  'apps/v1/Deployment': Deployment,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'v1/ConfigMap': ConfigMap,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
};

/** What the schema of the object's apiVersion and kind says is wrong with it; [] when it is valid. */
export function schemaProblems(manifest: Manifest): string[] {
  const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
  if (Model === undefined) return [`${manifest.kind} ${manifest.metadata?.name}: no schema here for ${manifest.apiVersion} ${manifest.kind}; add its model to test/helpers/manifests.ts`];
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

/**
 * The object of `kind` named `name`: a generated ConfigMap or Secret is found by its generator's name, which
 * kustomize ends with a hash of the content. Fails the test, listing what there is, when there is none.
 */
export function findManifest(manifests: Manifest[], kind: string, name: string): Manifest {
  const found =
    manifests.find((m) => m.kind === kind && m.metadata.name === name) ??
    manifests.find((m) => m.kind === kind && GENERATED_KINDS.has(kind) && GENERATED_SUFFIX.test(m.metadata.name) && m.metadata.name.replace(GENERATED_SUFFIX, '') === name);
  assert.ok(found, `no ${kind} ${name} among ${manifests.map((m) => `${m.kind} ${m.metadata.name}`).join(', ')}`);
  return found;
}
