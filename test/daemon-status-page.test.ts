import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { STATUS_PAGE_SCRIPT } from '../src/server/status-page-script.js';
import type { Reconcile } from '../src/daemon/index.js';
import { escapeHtml, html } from '../src/server/html.js';
import { renderStatusPage } from '../src/server/status-page.js';
import type { PolicyChange } from '../src/plan/types.js';
import type { PassOutcome } from '../src/reconcile.js';
import { tempTree } from './helpers/temp-tree.js';
import { startTestDaemon, testSource } from './helpers/daemon-harness.js';

const HOSTILE = '<img src=x onerror=alert(1)>';
const SCRIPT = '"><script>alert(2)</script>';

/** A pass whose every string (names, reasons, messages, warnings, errors) is hostile markup. */
const hostilePass: Reconcile = async (request) => {
  const change = (name: string, action: PolicyChange['action']): PolicyChange => ({
    resource: 'policy', name, id: action === 'create' ? null : 'pol-1', action, reason: `drift in ${SCRIPT}`,
    fields: {}, declared: null, live: null, uploadCode: false, adoptMarker: false,
  });
  const changes = [change(HOSTILE, 'create'), change(`${SCRIPT}&amp;`, 'update')];
  const outcome: PassOutcome = {
    sourcePlan: {
      name: request.source.name, organization: request.source.organization, revision: request.revision,
      plan: { changes, warnings: [`kept: ${HOSTILE}`], errors: [`update policy "${SCRIPT}" failed: ${HOSTILE}`] },
    },
    results: [
      { change: changes[0]!, outcome: 'applied', message: null },
      { change: changes[1]!, outcome: 'failed', message: `422 ${HOSTILE}` },
    ],
    ok: false,
  };
  return outcome;
};

test('the html tag escapes every value that is not itself html', () => {
  assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  const inner = html`<b>${HOSTILE}</b>`;
  assert.equal(html`<p title="${SCRIPT}">${inner}${[1, '<', null, false, undefined]}</p>`.text,
    '<p title="&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;"><b>&lt;img src=x onerror=alert(1)&gt;</b>1&lt;</p>');
});

test('/status.html and / render every hostile value escaped, with a policy that allows no script but the page\'s own', async (t) => {
  const source = testSource(`src-${HOSTILE}`, { path: await tempTree(t), organization: `org-${SCRIPT}` });
  const { get, daemon } = await startTestDaemon(t, { sources: [source], pass: hostilePass });
  await daemon.whenIdle();
  for (const path of ['/status.html', '/']) {
    const response = await get(path);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    // The one script allowed is the page's own update, by its hash: no inline handler, no other script.
    const csp = response.headers.get('content-security-policy') ?? '';
    const hash = `'sha256-${createHash('sha256').update(STATUS_PAGE_SCRIPT).digest('base64')}'`;
    assert.equal(/script-src ([^;]*)/.exec(csp)?.[1], hash);
    const page = await response.text();
    assert.ok(!page.includes('<img'), 'no img element');
    assert.equal(page.split('<script').length - 1, 1, 'one script element');
    assert.ok(page.includes(`<script>${STATUS_PAGE_SCRIPT}</script>`), 'the page\'s own');
    assert.ok(!page.includes('http-equiv="refresh"'), 'no reload, which would close an opened "Recent passes"');
    assert.ok(!/\son[a-z]+=/i.test(page.replace(/&lt;img src=x onerror=alert\(1\)&gt;/g, '')), 'no event handler attribute');
    assert.ok(page.includes(escapeHtml(HOSTILE)), 'the hostile name is shown as text');
    assert.ok(page.includes('&amp;amp;'), 'an entity in a value is shown as typed');
    for (const text of ['src-', 'org-', 'drift in', 'kept: ', '422 ', 'failed: ']) assert.ok(page.includes(escapeHtml(text)), text);
    assert.match(page, /<svg[^>]*aria-label="changes per pass/);
  }
  assert.equal((await get('/status.html?x=1')).status, 200);
});

test('with STATUS_TOKEN, the status page needs the token too', async (t) => {
  const { get, daemon } = await startTestDaemon(t, { sources: [testSource('main', { path: await tempTree(t) })], pass: hostilePass, env: { STATUS_TOKEN: 'page-token-1-long-enough' } });
  await daemon.whenIdle();
  for (const path of ['/status.html', '/']) {
    const refused = await get(path);
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate') ?? '', /^Basic realm=/, 'a browser shows its log-in prompt');
    assert.ok(!(await refused.text()).includes(HOSTILE));
    const allowed = await fetch(`${daemon.origin}${path}`, { headers: { authorization: `Basic ${Buffer.from('me:page-token-1-long-enough').toString('base64')}` } });
    assert.equal(allowed.status, 200);
  }
});

test('under leader election the page says first whether this replica leads, and who does; without it, nothing', () => {
  const now = new Date('2026-05-01T12:00:00Z');
  const line = (page: string) => /<p class="leadership">(.*?)<\/p>/.exec(page)?.[1]?.replace(/<[^>]+>/g, '');
  assert.equal(line(renderStatusPage([], now, { identity: 'pod-a_1_ab', leading: true, leader: 'pod-a_1_ab', storeReached: true })), 'leader This replica, pod-a_1_ab, holds the lease and syncs.');
  assert.equal(line(renderStatusPage([], now, { identity: 'pod-b_2_cd', leading: false, leader: 'pod-a_1_ab', storeReached: true })),
    'standby This replica, pod-b_2_cd, stands by and does not sync: the leader is pod-a_1_ab. The passes below are those it ran while it led, if any.');
  assert.match(line(renderStatusPage([], now, { identity: 'pod-b_2_cd', leading: false, leader: null, storeReached: false })) ?? '',
    /does not sync: no replica holds the lease right now\..* store unreachable Its last exchange with the leader-election store failed\.$/);
  assert.match(line(renderStatusPage([], now, { identity: HOSTILE, leading: false, leader: SCRIPT, storeReached: null })) ?? '', /has not answered yet/);
  assert.ok(!renderStatusPage([], now, { identity: HOSTILE, leading: false, leader: SCRIPT, storeReached: null }).includes(HOSTILE), 'escaped');
  assert.equal(line(renderStatusPage([], now)), undefined);
});
