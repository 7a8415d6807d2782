/**
 * The emulator's policy set versions and parameters, raw over HTTP in both dialects (docs/api-behaviour.md, Policy set
 * versions, Policy set parameters): the upload link (an hour, no token, octet-stream), ingestion of the tar.gz to
 * `ready` or to `errored` with a message naming the file and source, `ingressing` on the way, `status-timestamps`,
 * `current-version` and `newest-version`; parameters whose sensitive values never come back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestEmulator } from './helpers/emulator.js';
import { tarGz } from './helpers/tar-gz.js';

const ORG = 'acme';
const HOUR = 60 * 60 * 1000;

interface Version {
  id: string;
  attributes: { status: string; 'error-message': string | null; 'status-timestamps': Record<string, string>; source: string };
  links: { upload?: string };
}

for (const dialect of ['native', 'sentinel'] as const) {
  describe(`policy set versions in the ${dialect} dialect`, () => {
    let t: TestEmulator;
    let clock = Date.parse('2026-06-01T12:00:00Z');
    before(async () => (t = await TestEmulator.start({ nativeKind: dialect, organizations: [{ name: ORG }] }, { now: () => clock })));
    after(() => t.close());

    const config = dialect === 'sentinel' ? 'sentinel.hcl' : 'native.hcl';
    const newSet = async (name: string, kind: string = dialect): Promise<string> => {
      const created = await t.call('POST', `/organizations/${ORG}/policy-sets`, { body: { data: { type: 'policy-sets', attributes: { name, kind } } } });
      assert.equal(created.status, 201, created.text);
      return created.json.data.id as string;
    };
    const newVersion = async (set: string): Promise<Version> => {
      const created = await t.call('POST', `/policy-sets/${set}/versions`);
      assert.equal(created.status, 201, created.text);
      return created.json.data as Version;
    };
    const upload = (version: Version, archive: Buffer, headers: Record<string, string> = {}) =>
      fetch(version.links.upload!, { method: 'PUT', headers: { 'content-type': 'application/octet-stream', ...headers }, body: archive });
    const read = async (id: string): Promise<Version> => (await t.call('GET', `/policy-set-versions/${id}`)).json.data as Version;
    /** Reads the version while its ingestion runs, then once the clock has passed its 500 ms. */
    const settled = async (id: string): Promise<Version> => {
      const first = await read(id);
      assert.equal(first.attributes.status, 'ingressing', 'a client must poll: a read during ingestion is ingressing');
      clock += 499;
      assert.equal((await read(id)).attributes.status, 'ingressing', 'ingestion takes 500 ms on the emulator\'s clock');
      clock += 1;
      return read(id);
    };

    it('a version is pending with an upload link until its archive is PUT there without a token; it is then ingressing while its ingestion runs, then ready', async () => {
      const set = await newSet('good');
      const version = await newVersion(set);
      assert.match(version.id, /^polsetver-[A-Za-z0-9]{16}$/);
      assert.equal(version.attributes.status, 'pending');
      assert.equal(version.attributes.source, 'tfe-api');
      assert.deepEqual(Object.keys(version.attributes['status-timestamps']), ['pending-at']);
      assert.ok(!version.links.upload!.startsWith(t.url), 'the upload link is outside the API');
      assert.equal((await read(version.id)).attributes.status, 'pending');
      const archive = tarGz({
        [config]: 'import "module" "report" {\n  source = "./modules/report.sentinel"\n}\n\npolicy "one" {\n  source = "./policies/one.sentinel"\n  enforcement_level = "soft-mandatory"\n  params = { limit = 3 }\n}\n\npolicy "two" {\n  source = "policies/two.sentinel"\n}\n',
        'modules/report.sentinel': 'r = 1\n',
        'policies/one.sentinel': 'main = true\n',
        'policies/two.sentinel': 'main = true\n',
      });
      const withToken = await upload(version, archive, { authorization: `Bearer ${t.token}` });
      assert.equal(withToken.status, 400, 'the link carries its own authority: a token is refused');
      assert.equal((await upload(version, archive, { 'content-type': 'application/x-tar' })).status, 415);
      assert.equal((await upload(version, archive)).status, 200);
      assert.equal((await upload(version, archive)).status, 404, 'the link takes one archive');
      assert.deepEqual((await t.organization(ORG))['policy-sets'].find((s) => s.id === set)?.versions, [{
        id: version.id, status: 'ingressing (then ready)', 'error-message': null,
        policies: [{ name: 'one', level: 'soft-mandatory' }, { name: 'two', level: 'advisory' }],
      }]);
      const ready = await settled(version.id);
      assert.equal(ready.attributes.status, 'ready');
      assert.equal(ready.attributes['error-message'], null);
      assert.deepEqual(Object.keys(ready.attributes['status-timestamps']).sort(), ['ingressing-at', 'pending-at', 'ready-at']);
      const shown = await t.call('GET', `/policy-sets/${set}?include=current-version,newest_version`);
      assert.deepEqual(shown.json.data.relationships['current-version'].data, { id: version.id, type: 'policy-set-versions' });
      assert.deepEqual(shown.json.data.relationships['newest-version'].data, { id: version.id, type: 'policy-set-versions' });
      assert.equal(shown.json.data.attributes.versioned, true);
      assert.equal(shown.json.data.attributes['policy-count'], 2);
      assert.deepEqual(shown.json.included.map((r: Version) => r.attributes.status), ['ready']);
      assert.deepEqual(((await t.call('GET', `/organizations/${ORG}/policy-sets?filter[versioned]=true`)).json.data as Array<{ id: string }>).map((s) => s.id), [set]);
    });

    it('errored, with an error-message, for a missing source, a source outside the set, bad HCL, no config file, a level of another kind and a non-tar.gz; current-version stays the last ready one', async () => {
      const set = await newSet('bad');
      const good = await newVersion(set);
      await upload(good, tarGz({ [config]: 'policy "p" {\n  source = "./p.sentinel"\n}\n', 'p.sentinel': 'main = true\n' }));
      assert.equal((await settled(good.id)).attributes.status, 'ready');
      const cases: Array<[Buffer, RegExp]> = [
        [tarGz({ [config]: 'policy "p" {\n  source = "./missing.sentinel"\n}\n' }), new RegExp(`^${config}: policy "p" source "\\./missing\\.sentinel" is not in the policy set version's archive$`)],
        [tarGz({ [config]: 'import "module" "m" {\n  source = "./modules/m.sentinel"\n}\n' }), /import "module" "m" source "\.\/modules\/m\.sentinel" is not in/],
        [tarGz({ [config]: 'policy "p" {\n  source = "../outside.sentinel"\n}\n' }), /source "\.\.\/outside\.sentinel" is outside the policy set/],
        [tarGz({ [config]: 'policy "p" {\n  source = \n}\n' }), new RegExp(`^${config} is not valid HCL: ${config}:2,\\d+-\\d+,\\d+: Invalid expression`)],
        [tarGz({ 'other.hcl': 'x = 1\n' }), /^no (native\.hcl or sentinel\.hcl|sentinel\.hcl) at the root of the policy set version's archive$/],
        [tarGz({ [config]: 'policy "p" {\n  source = "./p.sentinel"\n  enforcement_level = "mandatory"\n}\n', 'p.sentinel': '' }), /enforcement_level "mandatory" is not one of hard-mandatory, soft-mandatory, advisory/],
        [tarGz({ [config]: 'policy "p" {\n  source = "./p.sentinel"\n}\n' }, { 'p.sentinel': '/etc/passwd' }), /source "\.\/p\.sentinel" is not in/],
        [Buffer.from('plain text'), /^the archive is not gzip-compressed$/],
      ];
      let last = good.id;
      for (const [archive, message] of cases) {
        const version = await newVersion(set);
        assert.equal((await upload(version, archive)).status, 200);
        const errored = await settled(version.id);
        assert.equal(errored.attributes.status, 'errored', String(message));
        assert.match(errored.attributes['error-message'] ?? '', message);
        assert.ok(errored.attributes['status-timestamps']['errored-at']);
        last = version.id;
      }
      const shown = (await t.call('GET', `/policy-sets/${set}`)).json.data.relationships;
      assert.deepEqual([shown['current-version'].data.id, shown['newest-version'].data.id], [good.id, last], 'current: newest ready; newest: newest of all');
    });

    it(`the config file: ${dialect === 'sentinel' ? 'sentinel.hcl only' : 'native.hcl, or sentinel.hcl as published libraries ship it'}; opa sets read policies.hcl, whose policies need a query`, async () => {
      const native = await newSet('published');
      const published = await newVersion(native);
      await upload(published, tarGz({ 'sentinel.hcl': 'policy "p" {\n  source = "./p.sentinel"\n}\n', 'p.sentinel': 'main = true\n' }));
      assert.equal((await settled(published.id)).attributes.status, 'ready');
      const neutral = await newVersion(native);
      await upload(neutral, tarGz({ 'native.hcl': 'policy "p" {\n  source = "./p.sentinel"\n}\n', 'p.sentinel': 'main = true\n' }));
      assert.equal((await settled(neutral.id)).attributes.status, dialect === 'sentinel' ? 'errored' : 'ready');
      const opa = await newSet('rego', 'opa');
      const good = await newVersion(opa);
      await upload(good, tarGz({ 'policies.hcl': 'policy "deny" {\n  query = "data.terraform.deny"\n  enforcement_level = "mandatory"\n}\n', 'deny.rego': 'package terraform\n' }));
      assert.equal((await settled(good.id)).attributes.status, 'ready');
      const noQuery = await newVersion(opa);
      await upload(noQuery, tarGz({ 'policies.hcl': 'policy "deny" {\n  enforcement_level = "advisory"\n}\n' }));
      assert.match((await settled(noQuery.id)).attributes['error-message'] ?? '', /^policies\.hcl: policy "deny" has no query$/);
    });

    it('ingestion runs on its own: once its time has passed, the set names the version as current though nobody read it', async () => {
      const set = await newSet('unread');
      const first = await newVersion(set);
      const second = await newVersion(set);
      await upload(first, tarGz({ [config]: 'policy "p" {\n  source = "./p.sentinel"\n}\n', 'p.sentinel': 'main = true\n' }));
      clock += 500;
      const shown = await t.call('GET', `/policy-sets/${set}?include=current_version,newest_version`);
      const relationships = shown.json.data.relationships;
      assert.deepEqual([relationships['current-version'].data?.id, relationships['newest-version'].data.id], [first.id, second.id]);
      const statuses = new Map((shown.json.included as Version[]).map((v) => [v.id, v.attributes.status]));
      assert.deepEqual([statuses.get(first.id), statuses.get(second.id)], ['ready', 'pending']);
      assert.equal(shown.json.data.attributes['policy-count'], 1);
      assert.equal((await read(first.id)).attributes['status-timestamps']['ready-at'], new Date(clock).toISOString(), 'ready when its ingestion ended');
    });

    it('behaviour ingestion-ms: how long ingestion takes on the emulator\'s clock; 0 ingests at once', async () => {
      await t.setBehaviour({ 'ingestion-ms': 60_000 });
      try {
        const set = await newSet('slow');
        const version = await newVersion(set);
        await upload(version, tarGz({ [config]: '' }));
        clock += 59_999;
        assert.equal((await read(version.id)).attributes.status, 'ingressing');
        clock += 1;
        assert.equal((await read(version.id)).attributes.status, 'ready');
        await t.setBehaviour({ 'ingestion-ms': 0 });
        const quick = await newVersion(set);
        await upload(quick, tarGz({ [config]: '' }));
        assert.equal((await read(quick.id)).attributes.status, 'ready');
      } finally {
        await t.setBehaviour({ 'ingestion-ms': 500 });
      }
    });

    it('the upload link lasts an hour; a VCS set or one holding individual policies takes no versions (422); an unknown set is 404', async () => {
      const set = await newSet('late');
      const version = await newVersion(set);
      clock += HOUR;
      const late = await upload(version, tarGz({ [config]: '' }));
      assert.equal(late.status, 403);
      assert.equal((await read(version.id)).attributes.status, 'pending');
      const vcs = await t.call('POST', `/organizations/${ORG}/policy-sets`, { body: { data: { type: 'policy-sets', attributes: { name: 'from-vcs', 'vcs-repo': { identifier: 'org/repo' } } } } });
      assert.equal((await t.call('POST', `/policy-sets/${vcs.json.data.id}/versions`)).status, 422);
      const policy = await t.call('POST', `/organizations/${ORG}/policies`, { body: { data: { type: 'policies', attributes: { name: 'single', kind: dialect } } } });
      const individual = await newSet('individual');
      await t.call('POST', `/policy-sets/${individual}/relationships/policies`, { body: { data: [{ type: 'policies', id: policy.json.data.id }] } });
      assert.equal((await t.call('POST', `/policy-sets/${individual}/versions`)).status, 422);
      const versioned = await newSet('versioned-one');
      await newVersion(versioned);
      const join = await t.call('POST', `/policy-sets/${versioned}/relationships/policies`, { body: { data: [{ type: 'policies', id: policy.json.data.id }] } });
      assert.equal(join.status, 422, 'a versioned set takes its policies from its versions');
      const born = await t.call('POST', `/organizations/${ORG}/policies`, { body: { data: { type: 'policies', attributes: { name: 'born-in', kind: dialect }, relationships: { 'policy-sets': { data: [{ id: versioned, type: 'policy-sets' }] } } } } });
      assert.equal(born.status, 422, 'nor at its creation');
      assert.equal(born.json.errors[0].source.pointer, '/data/relationships/policy-sets');
      assert.equal((await t.call('POST', '/policy-sets/polset-nosuch/versions')).status, 404);
      assert.equal((await t.call('GET', '/policy-set-versions/polsetver-nosuch')).status, 404);
    });
  });
}

for (const dialect of ['native', 'sentinel'] as const) describe(`policy set parameters in the ${dialect} dialect`, () => {
  let t: TestEmulator;
  before(async () => (t = await TestEmulator.start({ nativeKind: dialect, organizations: [{ name: ORG, policySets: [{ id: 'polset-native', name: 'native-set' }, { id: 'polset-rego', name: 'rego', kind: 'opa' }] }] })));
  after(() => t.close());

  const param = (attributes: Record<string, unknown>) => ({ body: { data: { type: 'vars', attributes: { category: 'policy-set', ...attributes } } } });

  it('vars of category policy-set; a sensitive value is answered empty on create, list, show and update, and stays sensitive', async () => {
    const plain = await t.call('POST', '/policy-sets/polset-native/parameters', param({ key: 'region', value: 'eu-west-1' }));
    assert.equal(plain.status, 201, plain.text);
    assert.deepEqual(plain.json.data.attributes, { key: 'region', value: 'eu-west-1', category: 'policy-set', sensitive: false });
    assert.match(plain.json.data.id, /^var-/);
    const secret = await t.call('POST', '/policy-sets/polset-native/parameters', param({ key: 'token', value: 'S3cr3t-value', sensitive: true }));
    assert.equal(secret.json.data.attributes.value, '');
    const id = secret.json.data.id as string;
    const answers = [
      (await t.call('GET', '/policy-sets/polset-native/parameters')).text,
      (await t.call('GET', `/policy-sets/polset-native/parameters/${id}`)).text,
      (await t.call('PATCH', `/policy-sets/polset-native/parameters/${id}`, { body: { data: { type: 'vars', id, attributes: { value: 'N3w-s3cret' } } } })).text,
    ];
    for (const text of answers) assert.ok(!text.includes('S3cr3t-value') && !text.includes('N3w-s3cret'), text);
    assert.match(answers[0]!, /"key":"token","value":"","category":"policy-set","sensitive":true/);
    const unhide = await t.call('PATCH', `/policy-sets/polset-native/parameters/${id}`, { body: { data: { type: 'vars', attributes: { sensitive: false } } } });
    assert.equal(unhide.status, 422);
    assert.equal((await t.call('POST', '/policy-sets/polset-native/parameters', param({ key: 'region', value: 'x' }))).status, 422, 'a key once per set');
    assert.equal((await t.call('POST', '/policy-sets/polset-native/parameters', { body: { data: { type: 'vars', attributes: { key: 'k', category: 'terraform' } } } })).status, 422);
    assert.equal((await t.call('POST', '/policy-sets/polset-rego/parameters', param({ key: 'k', value: 'v' }))).status, 422, 'native sets only');
    const held = (await t.organization(ORG))['policy-sets'].find((set) => set.id === 'polset-native');
    assert.deepEqual(held?.parameters, [{ key: 'region', value: 'eu-west-1', sensitive: false }, { key: 'token', value: 'N3w-s3cret', sensitive: true }], 'the state shows what the service holds');
    assert.equal((await t.call('DELETE', `/policy-sets/polset-native/parameters/${id}`)).status, 204);
    assert.equal((await t.call('DELETE', `/policy-sets/polset-native/parameters/${id}`)).status, 404);
    assert.equal((await t.call('GET', '/policy-sets/polset-nosuch/parameters')).status, 404);
  });
});
