import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../src/config/load.js';
import { ValidationError } from '../src/errors.js';

const SOURCE = 'sources:\n  - name: main\n    organization: example-org\n    path: .\n';

test('notifications and sync-windows are read with their defaults; their problems are reported', async () => {
  const config = await parseConfig(
    `${SOURCE}    sync-windows:\n      - { kind: deny, schedule: "0 22 * * 5", duration: 1h30m, timezone: Europe/Berlin }\n      - { kind: allow, schedule: "0 8 * * 1-5", duration: 45m }\n` +
      'notifications:\n  - { name: ops, type: webhook, url-env: OPS_URL, secret-env: OPS_SECRET, events: [failed, recovered] }\n' +
      '  - { name: gh, type: github-status, url-file: gh-url, status-url: "https://sync.example.com/status.html" }\n',
    'cfg.yaml', {}, { cwd: '/work' },
  );
  assert.deepEqual(config.sources[0]?.syncWindows, [
    { kind: 'deny', schedule: '0 22 * * 5', durationMinutes: 90, timezone: 'Europe/Berlin' },
    { kind: 'allow', schedule: '0 8 * * 1-5', durationMinutes: 45, timezone: 'UTC' },
  ]);
  assert.deepEqual(config.notifications, [
    { name: 'ops', type: 'webhook', urlEnv: 'OPS_URL', urlFile: null, secretEnv: 'OPS_SECRET', events: ['failed', 'recovered'], sources: null, statusUrl: null },
    { name: 'gh', type: 'github-status', urlEnv: null, urlFile: '/work/gh-url', secretEnv: null, events: null, sources: null, statusUrl: 'https://sync.example.com/status.html' },
  ]);

  const bad = parseConfig(
    `${SOURCE}    sync-windows:\n      - { kind: maybe, schedule: "0 22 * * 5", duration: 2 hours }\n` +
      'notifications:\n  - { name: ops, type: email, url-env: OPS_URL, events: [everything] }\n',
    'cfg.yaml', {},
  );
  await assert.rejects(bad, (error: unknown) => {
    assert.ok(error instanceof ValidationError);
    const text = error.problems.map((p) => p.message).join('\n');
    for (const key of ['kind', 'duration', 'type', 'events']) assert.match(text, new RegExp(key), text);
    return true;
  });
});
