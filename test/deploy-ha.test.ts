/**
 * deploy/ha: the overlay on deploy/base for two replicas under leader election, built by the real kustomize
 * (`kubectl kustomize`, test/helpers/manifests.ts) and checked like the base: every object valid against Kubernetes' published schemas,
 * the pod under Pod Security "restricted". Its pieces fit each other and the daemon: the config is the base's, and
 * the pods' environment switches leader election on (the kubernetes store, and the address for handed-over webhooks), the Role allows exactly what the store sends (get and
 * update of its one Lease, create of leases) to the pods' service account, the pods get the token the store reads,
 * and a topology spread constraint puts the replicas on different nodes.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { leaderAddress } from '../src/daemon/leader-address.js';
import { parseConfig } from '../src/config/index.js';
import { buildKustomization, findManifest as find, objectList, podSpec, restrictedProblems, schemaProblems, type Manifest, type PodSpec } from './helpers/manifests.js';
import { REPO_ROOT } from './helpers/repo-root.js';

const NAME = 'policy-pool-sync';
const LABELS = { 'app.kubernetes.io/name': NAME, 'app.kubernetes.io/instance': NAME, 'app.kubernetes.io/part-of': NAME };
const SELECTOR = { 'app.kubernetes.io/name': NAME, 'app.kubernetes.io/instance': NAME };

const field = <T>(manifest: Manifest, key: string) => manifest[key] as T;

describe('deploy/ha', () => {
  let manifests: Manifest[];
  let deployment: Manifest;
  let pod: PodSpec;
  before(async () => {
    manifests = await buildKustomization(join(REPO_ROOT, 'deploy/ha'));
    deployment = find(manifests, 'Deployment', NAME);
    pod = podSpec(deployment)!;
  });

  it("holds the base's objects with a Role, a RoleBinding and a PodDisruptionBudget, valid against Kubernetes' schemas", () => {
    assert.deepEqual(objectList(manifests).sort(), [
      `ConfigMap ${NAME}-config-<hash>`,
      `Deployment ${NAME}`,
      `NetworkPolicy ${NAME}`,
      `PodDisruptionBudget ${NAME}`,
      `Role ${NAME}-leader-election`,
      `RoleBinding ${NAME}-leader-election`,
      `Service ${NAME}`,
      `ServiceAccount ${NAME}`,
    ]);
    assert.deepEqual(manifests.flatMap(schemaProblems), []);
    for (const manifest of manifests) assert.deepEqual(manifest.metadata.labels, LABELS, `${manifest.kind} ${manifest.metadata.name}'s labels`);
  });

  it('runs under Pod Security "restricted", the patches merged into the base\'s pod rather than replacing it', async () => {
    assert.deepEqual(restrictedProblems(pod), []);
    const container = pod.containers.find((c) => c.name === NAME);
    assert.equal(pod.containers.length, 1);
    assert.equal(container?.securityContext?.readOnlyRootFilesystem, true);
    const base = podSpec(find(await buildKustomization(join(REPO_ROOT, 'deploy/base')), 'Deployment', NAME))!;
    assert.equal(container?.image, base.containers[0]?.image);
  });

  it('runs two replicas rolled one at a time, spread over nodes, with the service-account token the kubernetes store reads', () => {
    const spec = field<{ replicas: number; strategy: unknown; template: { metadata: { labels: Record<string, string> } } }>(deployment, 'spec');
    assert.equal(spec.replicas, 2);
    assert.deepEqual(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
    assert.equal(pod['automountServiceAccountToken'], true);
    assert.equal(field(find(manifests, 'ServiceAccount', NAME), 'automountServiceAccountToken'), true);
    // Spread over nodes as a rule (DoNotSchedule), not only preferred; each ReplicaSet by itself, so a rolling
    // update's surge pod can start next to an old one.
    type Spread = { topologyKey: string; maxSkew: number; whenUnsatisfiable: string; labelSelector: { matchLabels: Record<string, string> }; matchLabelKeys?: string[] };
    const spread = pod['topologySpreadConstraints'] as Spread[];
    const byNode = spread.find((c) => c.topologyKey === 'kubernetes.io/hostname');
    assert.deepEqual(byNode, { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: SELECTOR }, matchLabelKeys: ['pod-template-hash'] });
    for (const constraint of spread) assert.deepEqual(constraint.labelSelector.matchLabels, SELECTOR);
    assert.equal(pod['affinity'], undefined, 'the spread constraints replace the preferred anti-affinity');
  });

  it('keeps one replica through a drain: the PodDisruptionBudget selects the pods and leaves fewer than all', () => {
    const spec = field<{ minAvailable: number; selector: { matchLabels: Record<string, string> } }>(find(manifests, 'PodDisruptionBudget', NAME), 'spec');
    const template = field<{ replicas: number; template: { metadata: { labels: Record<string, string> } } }>(deployment, 'spec');
    assert.deepEqual(spec.selector.matchLabels, SELECTOR);
    assert.deepEqual(template.template.metadata.labels, LABELS);
    assert.equal(spec.minAvailable, 1);
    assert.ok(spec.minAvailable < template.replicas, 'a drain could never evict a pod');
  });

  it("gives the pods' service account what the kubernetes store sends, and nothing else: its one Lease by name, and create", () => {
    const role = find(manifests, 'Role', `${NAME}-leader-election`);
    const leaseName = NAME; // lease-name's default, which deploy/ha keeps
    // Kubernetes RBAC cannot restrict create by resourceNames (the name is not in a create's URL): with them the
    // create would be refused and no replica could make the Lease. So create stands alone, without them.
    assert.deepEqual(field(role, 'rules'), [
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [leaseName], verbs: ['get', 'update'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
    ]);
    const binding = find(manifests, 'RoleBinding', `${NAME}-leader-election`);
    assert.deepEqual(field(binding, 'roleRef'), { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.metadata.name });
    assert.deepEqual(field(binding, 'subjects'), [{ kind: 'ServiceAccount', name: pod['serviceAccountName'] }]);
  });

  it("keeps the base's config and switches leader election on by the pods' environment, with the address a standby hands webhooks to", async () => {
    const generated = find(manifests, 'ConfigMap', `${NAME}-config`);
    const base = find(await buildKustomization(join(REPO_ROOT, 'deploy/base')), 'ConfigMap', `${NAME}-config`);
    assert.deepEqual(field(generated, 'data'), field(base, 'data'), "the base's config, untouched: a config of your own keeps the election");
    const text = field<Record<string, string>>(generated, 'data')['default.yaml'] ?? '';
    assert.equal((await parseConfig(text, 'deploy/base/config.yaml', {}, { cwd: '/app' })).leaderElection, undefined);
    // The container's environment as the kubelet makes it: a fieldRef resolved, $(VAR) expanded from the ones before.
    const container = pod.containers.find((c) => c.name === NAME);
    const entries = (container?.['env'] ?? []) as { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
    const env: Record<string, string> = {};
    for (const entry of entries) {
      if (entry.valueFrom?.fieldRef?.fieldPath === 'status.podIP') env[entry.name] = '10.1.2.3';
      else if (entry.value !== undefined) env[entry.name] = entry.value.replace(/\$\(([A-Z_]+)\)/g, (_, name: string) => env[name] ?? '');
    }
    const config = await parseConfig(text, 'deploy/base/config.yaml', env, { cwd: '/app' });
    assert.deepEqual(config.leaderElection, { store: 'kubernetes', endpoints: [], leaseName: NAME, leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, address: 'http://10.1.2.3' });
    // The port is written once, in the base's container: the address takes the port the daemon listens on.
    assert.equal(leaderAddress(config, `http://${config.listen}`), `http://10.1.2.3:${config.listen.split(':').at(-1)}`);
    assert.equal(config.listen, '0.0.0.0:9090');
    assert.equal(leaderAddress(config, 'http://0.0.0.0:8080'), 'http://10.1.2.3:8080', 'a port changed in the base follows');
    const role = find(manifests, 'Role', `${NAME}-leader-election`);
    assert.ok(JSON.stringify(field(role, 'rules')).includes(`"resourceNames":["${config.leaderElection?.leaseName}"]`), 'the Role names the lease the daemon holds');
  });
});

describe('two installs in one namespace', () => {
  /** Each selector of an install, beside what it selects: the pods, or for the ServiceMonitor the Service. */
  function selectors(manifests: Manifest[]): Array<{ where: string; selector: Record<string, string>; selects: 'pods' | 'service' }> {
    const found: Array<{ where: string; selector: Record<string, string>; selects: 'pods' | 'service' }> = [];
    const walk = (value: unknown, where: string, selects: 'pods' | 'service'): void => {
      if (typeof value !== 'object' || value === null) return;
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'matchLabels' && !where.includes('namespaceSelector')) found.push({ where, selector: inner as Record<string, string>, selects });
        else walk(inner, `${where}.${key}`, selects);
      }
    };
    for (const manifest of manifests) {
      const where = `${manifest.kind} ${manifest.metadata.name}`;
      const spec = manifest['spec'] as { selector?: unknown } | undefined;
      if (manifest.kind === 'Service') found.push({ where, selector: spec?.selector as Record<string, string>, selects: 'pods' });
      else walk(spec, where, manifest.kind === 'ServiceMonitor' ? 'service' : 'pods');
    }
    return found;
  }
  const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([key, value]) => labels[key] === value);
  const targets = (manifests: Manifest[]) => {
    const deployment = manifests.find((m) => m.kind === 'Deployment')!;
    return {
      pods: field<{ template: { metadata: { labels: Record<string, string> } } }>(deployment, 'spec').template.metadata.labels,
      service: manifests.find((m) => m.kind === 'Service')!.metadata.labels ?? {},
    };
  };

  it('as docs/daemon.md shows the second: each selector of each selects its own pods (its own Service), never the other\'s', async () => {
    const first = await buildKustomization(join(REPO_ROOT, 'test/fixtures/deploy/first-install'));
    const second = await buildKustomization(join(REPO_ROOT, 'test/fixtures/deploy/second-install'));
    for (const [own, other] of [[first, second], [second, first]] as const) {
      const found = selectors(own);
      assert.ok(found.length >= 8, `the Deployment's, the Service's, the NetworkPolicy's two, the PDB's, two spread constraints and the ServiceMonitor's: ${found.map((s) => s.where).join(', ')}`);
      for (const { where, selector, selects } of found) {
        assert.ok(matches(selector, targets(own)[selects]), `${where} selects its own install's ${selects}`);
        assert.ok(!matches(selector, targets(other)[selects]), `${where} does not select the other install's ${selects}`);
      }
    }
  });
});
