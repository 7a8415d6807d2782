/**
 * deploy/: the kustomize base and the monitoring component are valid Kubernetes objects (Kubernetes' published
 * schemas), the pod passes Pod Security "restricted", and the pieces fit each other, the config and the image.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { before, describe, it } from 'node:test';
import { parseConfig } from '../src/config/index.js';
import { buildKustomization, findManifest as find, podSpec, restrictedProblems, schemaProblems, type Container, type Manifest, type PodSpec } from './helpers/kustomize.js';
import { REPO_ROOT } from './helpers/repo-root.js';

const NAME = 'policy-pool-sync';
const LABELS = { 'app.kubernetes.io/name': NAME };

/** A field of the Dockerfile's last stage: its ENV value, or the JSON array of an instruction. */
async function dockerfile(): Promise<{ env: (name: string) => string | undefined; array: (instruction: string) => string[]; user: string | undefined }> {
  const text = (await readFile(join(REPO_ROOT, 'Dockerfile'), 'utf8')).replace(/\\\n/g, ' ');
  const last = text.slice(text.lastIndexOf('\nFROM '));
  return {
    env: (name) => new RegExp(`\\b${name}=(\\S+)`).exec(last)?.[1],
    array: (instruction) => JSON.parse(new RegExp(`^${instruction} (\\[.*\\])$`, 'm').exec(last)?.[1] ?? '[]') as string[],
    user: /^USER (\S+)$/m.exec(last)?.[1],
  };
}

describe('deploy/base', () => {
  let manifests: Manifest[];
  let pod: PodSpec;
  let container: Container;
  before(async () => {
    manifests = await buildKustomization(join(REPO_ROOT, 'deploy/base'));
    pod = podSpec(find(manifests, 'Deployment', NAME))!;
    container = pod.containers.find((c) => c.name === NAME)!;
    assert.ok(container, `the Deployment has no container named ${NAME}`);
  });

  it("holds a Deployment, a ServiceAccount, a Service and the generated ConfigMap, valid against Kubernetes' schemas", () => {
    assert.deepEqual(manifests.map((m) => `${m.kind} ${m.metadata.name}`).sort(), [
      `ConfigMap ${NAME}-config`,
      `Deployment ${NAME}`,
      `Service ${NAME}`,
      `ServiceAccount ${NAME}`,
    ]);
    assert.deepEqual(manifests.flatMap(schemaProblems), []);
    for (const manifest of manifests) assert.deepEqual(manifest.metadata.labels, LABELS, `${manifest.kind} ${manifest.metadata.name}'s labels`);
  });

  it('runs under Pod Security "restricted": non-root uid 1000, RuntimeDefault seccomp, no capability, no escalation, a read-only root', () => {
    assert.deepEqual(restrictedProblems(pod), []);
    assert.equal(pod.securityContext?.runAsNonRoot, true);
    assert.equal(pod.securityContext?.runAsUser, 1000);
    assert.deepEqual(pod.securityContext?.seccompProfile, { type: 'RuntimeDefault' });
    assert.equal(container.securityContext?.readOnlyRootFilesystem, true);
    assert.equal(container.securityContext?.allowPrivilegeEscalation, false);
    assert.deepEqual(container.securityContext?.capabilities, { drop: ['ALL'] });
  });

  it('gets no service account token, and is probed on /healthz and /readyz', () => {
    assert.equal(find(manifests, 'ServiceAccount', NAME)['automountServiceAccountToken'], false);
    assert.equal(pod['serviceAccountName'], NAME);
    assert.equal(pod['automountServiceAccountToken'], false);
    const port = (probe: string) => (container[probe] as { httpGet: { path: string; port: string } }).httpGet;
    assert.deepEqual(port('livenessProbe'), { path: '/healthz', port: 'http' });
    assert.deepEqual(port('startupProbe'), { path: '/healthz', port: 'http' });
    assert.deepEqual(port('readinessProbe'), { path: '/readyz', port: 'http' });
    assert.ok(container.ports?.some((p) => p.name === 'http'));
    const resources = container['resources'] as { requests: Record<string, string>; limits: Record<string, string> };
    assert.ok(resources.requests['memory'] && resources.requests['cpu'] && resources.limits['memory'], 'requests and a memory limit');
  });

  it('selects its own pods: the Deployment and the Service select the pod template labels', () => {
    const deployment = find(manifests, 'Deployment', NAME)['spec'] as { selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> } }; replicas: number };
    assert.deepEqual(deployment.selector.matchLabels, LABELS);
    assert.deepEqual(deployment.template.metadata.labels, LABELS);
    assert.equal(deployment.replicas, 1);
    const service = find(manifests, 'Service', NAME)['spec'] as { selector: Record<string, string>; ports: Array<{ name: string; targetPort: string }> };
    assert.deepEqual(service.selector, LABELS);
    assert.deepEqual(service.ports.map((p) => p.targetPort), ['http']);
  });

  it("mounts the generated config where the image reads it, the tokens Secret where the config's token-file points, and the state dir", async () => {
    const image = await dockerfile();
    const volumes = new Map((pod.volumes ?? []).map((v) => [v.name, v]));
    const mounts = new Map((container.volumeMounts ?? []).map((m) => [m.name, m]));
    for (const name of mounts.keys()) assert.ok(volumes.has(name), `volumeMount ${name} has no volume`);

    // The image's command reads /config/default.yaml: the ConfigMap (by the generator's name, which kustomize renames
    // with a hash of the content) holds default.yaml and is mounted at /config.
    const configFile = image.array('CMD')[image.array('CMD').indexOf('--config') + 1];
    assert.equal(configFile, '/config/default.yaml');
    assert.deepEqual(volumes.get('config')?.['configMap'], { name: `${NAME}-config` });
    assert.equal(mounts.get('config')?.mountPath, posix.dirname(configFile));
    const configMap = find(manifests, 'ConfigMap', `${NAME}-config`)['data'] as Record<string, string>;
    const text = configMap[posix.basename(configFile)];
    assert.ok(text !== undefined, `the ConfigMap has no ${posix.basename(configFile)}`);

    const config = await parseConfig(text, 'deploy/base/config.yaml', {}, { cwd: '/app' });
    const secret = volumes.get('tokens')?.['secret'] as { secretName: string; items: Array<{ key: string; path: string }> };
    assert.equal(secret.secretName, `${NAME}-tokens`);
    const tokenFile = config.api.tokenFile ?? '';
    assert.equal(posix.dirname(tokenFile), mounts.get('tokens')?.mountPath);
    assert.ok(secret.items.some((item) => item.path === posix.basename(tokenFile)), `the Secret is not mounted as ${tokenFile}`);

    assert.deepEqual(volumes.get('state')?.['emptyDir'], {});
    assert.equal(mounts.get('state')?.mountPath, config.stateDir);
    assert.equal(config.stateDir, image.env('STATE_DIR'));
    assert.equal(config.listen.split(':')[1], String(container.ports?.find((p) => p.name === 'http')?.containerPort));
    assert.ok(mounts.has('tmp') && volumes.get('tmp')?.['emptyDir'], 'a writable /tmp on the read-only root');
  });

  it('takes the other tokens from the same Secret, each optional', async () => {
    const fromSecret = (variable: string) => container.env?.find((e) => e.name === variable)?.valueFrom?.secretKeyRef;
    for (const variable of ['WEBHOOK_SECRET', 'STATUS_TOKEN', 'CONTROL_TOKEN']) {
      const ref = fromSecret(variable);
      assert.equal(ref?.name, `${NAME}-tokens`, variable);
      assert.equal(ref?.optional, true, variable);
    }
  });

  it("runs the image's user, numeric, as the pod's uid", async () => {
    assert.equal((await dockerfile()).user, `${pod.securityContext?.runAsUser}:${pod.securityContext?.runAsGroup}`);
  });
});

describe('deploy/monitoring', () => {
  it('adds a ServiceMonitor on the Service\'s port that sends the status token the daemon requires, when the Secret has one', async () => {
    const manifests = await buildKustomization(join(REPO_ROOT, 'deploy/monitoring'));
    assert.deepEqual(manifests.map((m) => `${m.kind} ${m.metadata.name}`), [`ServiceMonitor ${NAME}`]);
    assert.deepEqual(manifests.flatMap(schemaProblems), []);
    const spec = manifests[0]!['spec'] as { selector: { matchLabels: Record<string, string> }; endpoints: Array<{ port: string; path: string; authorization: { type: string; credentials: { name: string; key: string; optional: boolean } } }> };
    assert.deepEqual(spec.selector.matchLabels, LABELS);

    const base = await buildKustomization(join(REPO_ROOT, 'deploy/base'));
    const ports = (find(base, 'Service', NAME)['spec'] as { ports: Array<{ name: string }> }).ports.map((p) => p.name);
    const container = podSpec(find(base, 'Deployment', NAME))!.containers[0]!;
    const statusToken = container.env?.find((e) => e.name === 'STATUS_TOKEN')?.valueFrom?.secretKeyRef;
    for (const endpoint of spec.endpoints) {
      assert.ok(ports.includes(endpoint.port), `the Service has no port ${endpoint.port}`);
      assert.equal(endpoint.path, '/metrics');
      assert.equal(endpoint.authorization.type, 'Bearer');
      assert.deepEqual(endpoint.authorization.credentials, statusToken);
    }
  });
});

describe('the checks on deploy/ can fail', () => {
  let deployment: Manifest;
  before(async () => {
    deployment = find(await buildKustomization(join(REPO_ROOT, 'deploy/base')), 'Deployment', NAME);
  });
  const changed = (change: (pod: PodSpec, container: Container) => void): Manifest => {
    const copy = structuredClone(deployment);
    const pod = podSpec(copy)!;
    change(pod, pod.containers[0]!);
    return copy;
  };

  it("the schema check finds a field of the wrong type or a missing required one", () => {
    assert.notDeepEqual(schemaProblems(changed((pod) => ((pod.securityContext as Record<string, unknown>)['runAsUser'] = 'root'))), []);
    assert.notDeepEqual(schemaProblems(changed((_, container) => delete (container as Partial<Container>).name)), []);
  });

  it('the Pod Security check finds each way out of "restricted"', () => {
    const cases: Array<[string, (pod: PodSpec, container: Container) => void]> = [
      ['capabilities', (_, c) => delete c.securityContext!.capabilities],
      ['allowPrivilegeEscalation', (_, c) => (c.securityContext!.allowPrivilegeEscalation = true)],
      ['runAsNonRoot', (pod, c) => (delete pod.securityContext!.runAsNonRoot, delete c.securityContext!.runAsNonRoot)],
      ['seccompProfile', (pod, c) => (delete pod.securityContext!.seccompProfile, delete c.securityContext!.seccompProfile)],
      ['readOnlyRootFilesystem', (_, c) => (c.securityContext!.readOnlyRootFilesystem = false)],
      ['a hostPath volume', (pod) => pod.volumes!.push({ name: 'host', hostPath: { path: '/' } })],
      ['uid 0', (_, c) => (c.securityContext!.runAsUser = 0)],
    ];
    for (const [what, change] of cases) assert.notDeepEqual(restrictedProblems(podSpec(changed(change))!), [], what);
  });
});
