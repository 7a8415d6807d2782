/**
 * deploy/: the kustomize base and the monitoring component, built by the real kustomize (`kubectl kustomize`), are
 * valid Kubernetes objects (Kubernetes' published schemas), the pod passes Pod Security "restricted", and the pieces
 * fit each other, the config, the image and the daemon's metrics.
 */
import assert from 'node:assert/strict';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { before, describe, it } from 'node:test';
import { parseConfig } from '../src/config/index.js';
import { parseCron } from '../src/cron.js';
import { createDaemonMetrics } from '../src/operations/metrics.js';
import {
  buildKustomization,
  findManifest as find,
  GENERATED_SUFFIX,
  objectList,
  podSpec,
  restrictedProblems,
  schemaProblems,
  type Container,
  type Manifest,
  type PodSpec,
} from './helpers/manifests.js';
import { REPO_ROOT } from './helpers/repo-root.js';
import { tempTree } from './helpers/temp-tree.js';

const NAME = 'policy-pool-sync';
/** Every object's labels, as Argo CD's and Flux's install manifests give theirs, and what every selector selects by. */
const LABELS = { 'app.kubernetes.io/name': NAME, 'app.kubernetes.io/instance': NAME, 'app.kubernetes.io/part-of': NAME };
const SELECTOR = { 'app.kubernetes.io/name': NAME, 'app.kubernetes.io/instance': NAME };

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

  it("holds a Deployment, a ServiceAccount, a Service, a NetworkPolicy and the generated ConfigMap, valid against Kubernetes' schemas", () => {
    assert.deepEqual(objectList(manifests).sort(), [
      `ConfigMap ${NAME}-config-<hash>`,
      `Deployment ${NAME}`,
      `NetworkPolicy ${NAME}`,
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
    assert.deepEqual(deployment.selector.matchLabels, SELECTOR);
    assert.deepEqual(deployment.template.metadata.labels, LABELS);
    assert.equal(deployment.replicas, 1);
    const service = find(manifests, 'Service', NAME)['spec'] as { selector: Record<string, string>; ports: Array<{ name: string; targetPort: string }> };
    assert.deepEqual(service.selector, SELECTOR);
    assert.deepEqual(service.ports.map((p) => p.targetPort), ['http']);
  });

  it("mounts the generated config where the image reads it, the tokens Secret where the config's token-file points, and the state dir", async () => {
    const image = await dockerfile();
    const volumes = new Map((pod.volumes ?? []).map((v) => [v.name, v]));
    const mounts = new Map((container.volumeMounts ?? []).map((m) => [m.name, m]));
    for (const name of mounts.keys()) assert.ok(volumes.has(name), `volumeMount ${name} has no volume`);

    // The image's command reads /config/default.yaml: the ConfigMap (the generator's name with a hash of the content)
    // holds default.yaml and is mounted at /config.
    const configFile = image.array('CMD')[image.array('CMD').indexOf('--config') + 1];
    assert.equal(configFile, '/config/default.yaml');
    assert.deepEqual(volumes.get('config')?.['configMap'], { name: find(manifests, 'ConfigMap', `${NAME}-config`).metadata.name });
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
    // The port is written once, in the container: the listen address comes from LISTEN_ADDRESS beside containerPort.
    assert.doesNotMatch(text, /^listen:/m, 'the config names no listen address: LISTEN_ADDRESS overrides it');
    const listenAddress = container.env?.find((e) => e.name === 'LISTEN_ADDRESS')?.value ?? '';
    const running = await parseConfig(text, 'deploy/base/config.yaml', { LISTEN_ADDRESS: listenAddress }, { cwd: '/app' });
    assert.equal(running.listen.split(':').at(-1), String(container.ports?.find((p) => p.name === 'http')?.containerPort));
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

  it("names the ConfigMap after a hash of its content, and the Deployment follows it: a config change rolls the pod", async (t) => {
    const configMap = find(manifests, 'ConfigMap', `${NAME}-config`).metadata.name;
    assert.match(configMap, new RegExp(`^${NAME}-config${GENERATED_SUFFIX.source}`));
    const reference = (m: Manifest[]) => (podSpec(find(m, 'Deployment', NAME))?.volumes?.find((v) => v.name === 'config')?.['configMap'] as { name: string }).name;
    assert.equal(reference(manifests), configMap);

    const dir = await tempTree(t, {}, 'deploy-base-');
    await cp(join(REPO_ROOT, 'deploy/base'), dir, { recursive: true });
    await writeFile(join(dir, 'config.yaml'), (await readFile(join(dir, 'config.yaml'), 'utf8')).replace('max-deletes: 10', 'max-deletes: 11'));
    const changed = await buildKustomization(dir);
    const renamed = find(changed, 'ConfigMap', `${NAME}-config`).metadata.name;
    assert.notEqual(renamed, configMap, 'a changed config keeps the ConfigMap name: the pod would not roll');
    assert.equal(reference(changed), renamed);
  });

  it("prunes, unlike the command line's default, and says why beside the setting", async () => {
    const text = await readFile(join(REPO_ROOT, 'deploy/base/config.yaml'), 'utf8');
    const parsed = async (yaml: string) => (await parseConfig(yaml, 'deploy/base/config.yaml', {}, { cwd: '/app' })).sources[0];
    assert.equal((await parsed(text))?.prune, true);
    assert.equal((await parsed(text.replace(/^\s+prune: true\n/m, '')))?.prune, false, 'prune is off by default');
    const lines = text.split('\n');
    const at = lines.findIndex((line) => /^\s+prune: true$/.test(line));
    let first = at;
    while (first > 0 && /^\s*#/.test(lines[first - 1] ?? '')) first -= 1;
    const why = lines.slice(first, at).join(' ');
    assert.match(why, /command line/, 'the comment above prune: true says how it differs from the command line');
    assert.match(why, /max-deletes/);
  });

  it('lets in only the HTTP port, and only from its own pods and the namespaces labelled for the webhook and for metrics', () => {
    const spec = find(manifests, 'NetworkPolicy', NAME)['spec'] as { podSelector: { matchLabels: Record<string, string> }; policyTypes: string[]; ingress: Array<{ from?: unknown; ports: Array<{ port: string | number; protocol: string }> }> };
    // No rule without `from` (that would admit every pod of every namespace), and none admitting a namespace by itself.
    assert.deepEqual(spec.ingress.map((rule) => rule.from), [[
      { podSelector: { matchLabels: SELECTOR } },
      { namespaceSelector: { matchLabels: { 'policy-pool-sync.io/webhook': 'true' } } },
      { namespaceSelector: { matchLabels: { 'policy-pool-sync.io/metrics': 'true' } } },
    ]]);
    const template = (find(manifests, 'Deployment', NAME)['spec'] as { template: { metadata: { labels: Record<string, string> } } }).template;
    assert.deepEqual(spec.podSelector.matchLabels, SELECTOR);
    assert.deepEqual(template.metadata.labels, LABELS);
    assert.deepEqual(spec.policyTypes, ['Ingress']);
    assert.deepEqual(spec.ingress.flatMap((rule) => rule.ports), [{ port: 'http', protocol: 'TCP' }]);
    assert.deepEqual(container.ports?.map((p) => p.name), ['http'], 'the container serves one port, the one let in');
    const service = find(manifests, 'Service', NAME)['spec'] as { ports: Array<{ targetPort: string }> };
    assert.deepEqual(service.ports.map((p) => p.targetPort), ['http']);
  });
});

describe('kubectl kustomize, as the deploy tests find it', () => {
  it('fails saying what is missing when kubectl is not on the PATH, or its kustomize is older than v5', async (t) => {
    const dir = await tempTree(t, {}, 'no-kubectl-');
    await assert.rejects(buildKustomization(join(REPO_ROOT, 'deploy/base'), { env: { PATH: dir } }), /kubectl is not on the PATH.*kubectl kustomize.*install kubectl 1\.27 or later/);
    // Debian's kubernetes-client (1.20) answers with kustomize v2.0.3.
    await writeFile(join(dir, 'kubectl'), '#!/bin/sh\necho \'{"clientVersion":{"gitVersion":"v1.20.5"},"kustomizeVersion":"v2.0.3"}\'\n', { mode: 0o755 });
    await assert.rejects(buildKustomization(join(REPO_ROOT, 'deploy/base'), { env: { PATH: dir } }), /kustomize v2\.0\.3; the deploy tests need kustomize v5 or later/);
  });
});

describe('deploy/monitoring', () => {
  let manifests: Manifest[];
  before(async () => {
    // An overlay of the base with the component, as docs/daemon.md shows (a component is not built alone).
    manifests = await buildKustomization(join(REPO_ROOT, 'test/fixtures/deploy/monitored'));
  });

  it("adds a ServiceMonitor and a PrometheusRule to the base, valid against the operator's schemas", async () => {
    const base = await buildKustomization(join(REPO_ROOT, 'deploy/base'));
    assert.deepEqual(objectList(manifests).sort(), [...objectList(base), `PrometheusRule ${NAME}`, `ServiceMonitor ${NAME}`].sort());
    assert.deepEqual(manifests.flatMap(schemaProblems), []);
    for (const manifest of manifests) assert.deepEqual(manifest.metadata.labels, LABELS, `${manifest.kind} ${manifest.metadata.name}'s labels`);
  });

  it("scrapes the Service's port with the status token, which both Prometheus and the daemon require (prometheus-operator never reads optional)", () => {
    const spec = find(manifests, 'ServiceMonitor', NAME)['spec'] as { selector: { matchLabels: Record<string, string> }; endpoints: Array<{ port: string; path: string; authorization: { type: string; credentials: Record<string, unknown> } }> };
    assert.deepEqual(spec.selector.matchLabels, SELECTOR);
    const ports = (find(manifests, 'Service', NAME)['spec'] as { ports: Array<{ name: string }> }).ports.map((p) => p.name);
    const container = podSpec(find(manifests, 'Deployment', NAME))!.containers[0]!;
    const statusToken = container.env?.find((e) => e.name === 'STATUS_TOKEN')?.valueFrom?.secretKeyRef;
    assert.deepEqual(statusToken, { name: `${NAME}-tokens`, key: 'status-token', optional: false });
    assert.equal(container.env?.filter((e) => e.name === 'STATUS_TOKEN').length, 1);
    assert.ok(spec.endpoints.length > 0);
    for (const endpoint of spec.endpoints) {
      assert.ok(ports.includes(endpoint.port), `the Service has no port ${endpoint.port}`);
      assert.equal(endpoint.path, '/metrics');
      assert.equal(endpoint.authorization.type, 'Bearer');
      assert.deepEqual(endpoint.authorization.credentials, { name: statusToken?.name, key: statusToken?.key });
    }
    // The other tokens stay optional: the patch merged into the base's variables rather than replacing them.
    for (const variable of ['WEBHOOK_SECRET', 'CONTROL_TOKEN']) assert.equal(container.env?.find((e) => e.name === variable)?.valueFrom?.secretKeyRef?.optional, true, variable);
  });

  it("alerts after 3 schedule intervals without a successful pass, and on fighting, over metrics the daemon exports", async () => {
    type Rule = { alert: string; expr: string; for?: string; labels: Record<string, string>; annotations: Record<string, string> };
    const rules = (find(manifests, 'PrometheusRule', NAME)['spec'] as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((g) => g.rules);
    assert.deepEqual(rules.map((r) => r.alert), ['PolicyPoolSyncNoRecentSuccess', 'PolicyPoolSyncFighting']);

    const config = await parseConfig((find(manifests, 'ConfigMap', `${NAME}-config`)['data'] as Record<string, string>)['default.yaml'] ?? '', 'deploy/base/config.yaml', {}, { cwd: '/app' });
    const schedule = parseCron(config.sources[0]!.schedule, 'UTC');
    const first = schedule.next(new Date('2026-01-01T00:00:00Z'))!;
    const interval = (schedule.next(first)!.getTime() - first.getTime()) / 1000;
    const [stale, fighting] = rules as [Rule, Rule];
    assert.equal(stale.expr, `time() - max by (namespace, job, source) (policy_pool_sync_last_success_timestamp_seconds) > 3 * ${interval}`);
    assert.equal(fighting.expr, 'max by (namespace, job, source) (policy_pool_sync_fighting_resources) > 0');

    const metrics = createDaemonMetrics({ defaultMetrics: false });
    metrics.addSource('platform');
    metrics.lastSuccess('platform', Date.now());
    const exported = new Set([...(await metrics.registry.metrics()).matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]));
    for (const rule of rules) {
      for (const name of rule.expr.match(/policy_pool_sync_\w+/g) ?? []) assert.ok(exported.has(name), `${rule.alert}: the daemon exports no ${name}`);
      assert.ok(rule.labels['severity'] && rule.annotations['summary'] && rule.annotations['description'], `${rule.alert}: severity, summary and description`);
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

describe('deploy/persistent-state', () => {
  it('keeps the state dir on a PersistentVolumeClaim instead of the emptyDir, valid against Kubernetes\' schemas', async () => {
    const manifests = await buildKustomization(join(REPO_ROOT, 'test/fixtures/deploy/persistent'));
    for (const manifest of manifests) assert.deepEqual(schemaProblems(manifest), []);
    const claim = find(manifests, 'PersistentVolumeClaim', `${NAME}-state`);
    assert.deepEqual((claim['spec'] as { accessModes: string[] }).accessModes, ['ReadWriteOnce']);
    const pod = podSpec(find(manifests, 'Deployment', NAME))!;
    assert.deepEqual(pod.volumes?.find((v) => v.name === 'state'), { name: 'state', persistentVolumeClaim: { claimName: claim.metadata.name } });
    const mount = pod.containers.find((c) => c.name === NAME)?.volumeMounts?.find((m) => m.name === 'state');
    assert.equal(mount?.mountPath, '/var/lib/policy-pool-sync');
  });
});

describe('deploy/webhook-ingress', () => {
  it('exposes POST /webhook alone: one rule, one exact path, to the port the Service names http', async () => {
    const manifests = await buildKustomization(join(REPO_ROOT, 'test/fixtures/deploy/webhook-ingress'));
    for (const manifest of manifests) assert.deepEqual(schemaProblems(manifest), []);
    const spec = find(manifests, 'Ingress', `${NAME}-webhook`)['spec'] as { defaultBackend?: unknown; rules: Array<{ http: { paths: Array<{ path: string; pathType: string; backend: { service: { name: string; port: { name: string } } } }> } }> };
    assert.equal(spec.defaultBackend, undefined, 'no default backend: nothing but /webhook reaches the daemon');
    const paths = spec.rules.flatMap((rule) => rule.http.paths);
    assert.deepEqual(paths.map((p) => [p.path, p.pathType]), [['/webhook', 'Exact']]);
    const service = find(manifests, 'Service', NAME);
    assert.deepEqual(paths[0]!.backend.service, { name: service.metadata.name, port: { name: 'http' } });
    assert.ok((service['spec'] as { ports: Array<{ name: string }> }).ports.some((p) => p.name === 'http'));
  });
});

describe('deploy/token-secrets', () => {
  let manifests: Manifest[];
  before(async () => {
    // An overlay of the base with the component, as docs/declared-repo.md shows (a component is not built alone).
    manifests = await buildKustomization(join(REPO_ROOT, 'test/fixtures/deploy/token-secrets'));
  });

  it('adds a Role and a RoleBinding to the base, valid against the schemas, and mounts the token the Secret writer reads', async () => {
    const base = await buildKustomization(join(REPO_ROOT, 'deploy/base'));
    assert.deepEqual(objectList(manifests).sort(), [...objectList(base), `Role ${NAME}-token-secrets`, `RoleBinding ${NAME}-token-secrets`].sort());
    assert.deepEqual(manifests.flatMap(schemaProblems), []);
    for (const manifest of manifests) assert.deepEqual(manifest.metadata.labels, LABELS, `${manifest.kind} ${manifest.metadata.name}'s labels`);
    assert.equal(find(manifests, 'ServiceAccount', NAME)['automountServiceAccountToken'], true);
    assert.equal(podSpec(find(manifests, 'Deployment', NAME))!['automountServiceAccountToken'], true);
  });

  it('lets the service account get and patch one Secret by name, and create (what kubernetesSecretWriter sends), nothing else', () => {
    const rules = find(manifests, 'Role', `${NAME}-token-secrets`)['rules'];
    assert.deepEqual(rules, [
      { apiGroups: [''], resources: ['secrets'], resourceNames: [`${NAME}-agent-tokens`], verbs: ['get', 'patch'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
    ]);
    const binding = find(manifests, 'RoleBinding', `${NAME}-token-secrets`) as Manifest & { subjects: Array<{ kind: string; name: string }>; roleRef: { name: string } };
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: NAME }]);
    assert.equal(binding.roleRef.name, `${NAME}-token-secrets`);
  });
});
