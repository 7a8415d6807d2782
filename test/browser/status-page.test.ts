/**
 * The status page in a real browser: the system Chromium driven by playwright-core, against the built daemon
 * (`api.url: embedded`). Not part of `npm test`; run with `npm run test:browser` (see the README).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import type { SourceStatus } from '../../src/daemon/index.js';
import { tempTree } from '../helpers/temp-tree.js';
import { waitFor } from '../helpers/wait.js';
import { spawnDaemon } from '../helpers/daemon-process.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HOSTILE = '<img src=x onerror=alert(1)>';
const TOKEN = 'browser-status-token-7Qk';
/** Where the screenshot goes (gitignored). */
const OUTPUT = path.resolve(process.env.TEST_OUTPUT_DIR ?? 'test-output');

test('the status page shows both sources, the last pass, drift over time and the changes, with a hostile name as text', async (t) => {
  assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: apt-get install -y chromium, or set CHROMIUM_PATH`);
  const platform = await tempTree(t, {
    'policies/require-tags.native': 'main = rule { true }\n',
    'policies/require-tags.yaml': 'description: Tags are required.\nenforcement-level: hard-mandatory\n',
    'policies/opa/deny-public.rego': 'package s3\n\ndeny contains "x" if { false }\n',
    'policies/opa/deny-public.yaml': 'query: data.s3.deny\n',
    'policies/restrict-instance-types.native': 'main = rule { true }\n',
    'policies/restrict-instance-types.yaml': 'description: Only approved instance types.\nenforcement-level: soft-mandatory\n',
    'policies/limit-monthly-cost.native': 'main = rule { true }\n',
  });
  const sandbox = await tempTree(t, { 'policies/ok.native': 'main = rule { true }\n', [`policies/${HOSTILE}.native`]: 'main = rule { true }\n' });
  const daemon = await spawnDaemon(t, {
    api: { url: 'embedded' },
    sources: [
      { name: 'platform', organization: 'example-org', path: platform, schedule: '0 0 1 1 *' },
      { name: 'sandbox', organization: 'sandbox-org', path: sandbox, schedule: '0 0 1 1 *' },
    ],
  }, { STATUS_TOKEN: TOKEN });
  const authorization = `Bearer ${TOKEN}`;
  const statuses = async () => ((await (await fetch(`${daemon.origin}/status`, { headers: { authorization } })).json()) as { sources: SourceStatus[] }).sources;
  const platformPass = async (trigger: string, count: number) =>
    waitFor(`platform pass ${count}`, async () => {
      const status = (await statuses()).find((s) => s.name === 'platform');
      const history = ((await (await fetch(`${daemon.origin}/status?history=1`, { headers: { authorization } })).json()) as { sources: SourceStatus[] }).sources[0]?.history ?? [];
      return status?.running === false && status.lastPass?.trigger === trigger && history.length === count ? status : undefined;
    }, 15_000);

  // Pass 1 creates four policies. Pass 2: two edits and a deleted file (kept: prune is off).
  await platformPass('start-up', 1);
  await writeFile(path.join(platform, 'policies/require-tags.yaml'), 'description: Tags are required, now with cost-center.\nenforcement-level: hard-mandatory\n');
  await writeFile(path.join(platform, 'policies/restrict-instance-types.yaml'), 'description: Only approved instance types.\nenforcement-level: hard-mandatory\n');
  await rm(path.join(platform, 'policies/limit-monthly-cost.native'));
  const last = await platformPass('file-change', 2);
  assert.equal(last.lastPass?.drift, 2);
  await waitFor('the sandbox pass', async () => ((await statuses()).find((s) => s.name === 'sandbox')?.result === 'failure' ? true : undefined));
  assert.equal((await fetch(`${daemon.origin}/status.html`)).status, 401, 'the page needs the token');

  // A fresh profile, removed only once the browser has closed (it writes there until then).
  const profile = await mkdtemp(path.join(os.tmpdir(), 'pps-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    httpCredentials: { username: 'operator', password: TOKEN },
    viewport: { width: 1280, height: 900 },
  });
  t.after(async () => {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const dialogs: string[] = [];
  const requests: string[] = [];
  const pageErrors: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => pageErrors.push(error.message));

  const response = await page.goto(`${daemon.origin}/status.html`, { waitUntil: 'load' });
  assert.equal(response?.status(), 200);
  assert.equal(await page.title(), 'policy-pool-sync status');
  assert.deepEqual(await page.locator('section.source h2').allInnerTexts(), ['platform', 'sandbox']);

  const platformSection = page.locator('section.source').nth(0);
  assert.equal(await platformSection.locator('.head .badge.result').innerText(), 'applied');
  const rows = await platformSection.locator('table.changes tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())));
  assert.deepEqual(rows.map((r) => [r[0], r[2], r[4]]), [['~ update', 'require-tags', 'applied'], ['~ update', 'restrict-instance-types', 'applied']]);
  assert.match(rows[0]?.[3] ?? '', /differs in description/);
  assert.match(await platformSection.locator('ul.warnings').innerText(), /not declared and kept because prune is off: policy "limit-monthly-cost"/);
  const bars = await platformSection.locator('.drift svg rect').evaluateAll((rects) => rects.map((r) => Number(r.getAttribute('height'))));
  assert.equal(bars.length, 2, 'one bar per pass');
  assert.ok((bars[0] ?? 0) > (bars[1] ?? 0), 'four changes, then two: the first bar is the taller');
  assert.match(await platformSection.locator('.drift').innerText(), /Changes over the last 2 passes/);

  const sandboxSection = page.locator('section.source').nth(1);
  assert.equal(await sandboxSection.locator('.head .badge.result').innerText(), 'failed');
  assert.ok((await sandboxSection.locator('.error').innerText()).includes(`"${HOSTILE}" is not a valid policy name`), 'the hostile name is shown as text');
  assert.equal(await page.locator('img').count(), 0, 'the hostile name made no element');
  assert.equal(await page.locator('script').count(), 1, 'the page\'s own update script, and no other');
  assert.deepEqual(dialogs, [], 'no script ran');
  assert.deepEqual(pageErrors, []);
  assert.ok(requests.every((url) => url.startsWith(daemon.origin)), `only the daemon was asked: ${requests.join(', ')}`);

  // The page updates itself from the daemon without a reload: an opened "Recent passes" stays open.
  await platformSection.locator('details.history summary').click();
  await writeFile(path.join(platform, 'policies/require-tags.yaml'), 'description: Tags are required, a third time.\nenforcement-level: hard-mandatory\n');
  await platformPass('file-change', 3);
  const passRows = page.locator('section.source').nth(0).locator('details.history tbody tr');
  await waitFor('the page to update itself', async () => ((await passRows.count()) === 3 ? true : undefined), 25_000);
  assert.equal(await page.locator('section.source').nth(0).locator('details.history').getAttribute('open'), '', 'still open after the update');
  assert.match(await page.locator('section.source').nth(0).locator('details.history tbody tr').first().innerText(), /~ require-tags/);
  assert.deepEqual(pageErrors, []);
  assert.ok(requests.every((url) => url.startsWith(daemon.origin)), `only the daemon was asked: ${requests.join(', ')}`);

  await mkdir(OUTPUT, { recursive: true });
  const screenshot = path.join(OUTPUT, 'status-page.png');
  await page.screenshot({ path: screenshot, fullPage: true });
  t.diagnostic(`screenshot: ${screenshot}`);
});
