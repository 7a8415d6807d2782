/** What receivers are sent as text: Slack escaped by its rules, commit status descriptions cut on code points, GitLab project ids encoded. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slackPayload } from '../src/notify/messages.js';
import { gitlabProjectUrl, openReceiver } from '../src/notify/receivers.js';
import type { PassReport } from '../src/notify/report.js';

function report(overrides: Partial<PassReport> = {}): PassReport {
  return {
    source: 'main', organization: 'example-org', kind: 'git', trigger: 'schedule', revision: 'abc123', ok: true, error: null, planned: true,
    changes: [], errors: [], windowClosed: false, overrideWindow: false, ...overrides,
  };
}

test('Slack text escapes &, < and >: a hostile name is shown as written, never a mention or a disguised link', () => {
  const hostile = report({
    ok: false,
    error: 'policy "<!channel>" & <https://evil.example|the docs> failed',
    changes: [{ resource: 'policy', name: '<!here>', action: 'create', reason: 'a > b', outcome: 'failed' }],
  });
  const { text } = slackPayload('failed', hostile) as { text: string };
  assert.doesNotMatch(text, /[<>]/);
  assert.match(text, /"&lt;!channel&gt;" &amp; &lt;https:\/\/evil\.example\|the docs&gt; failed/);
  assert.equal(text.includes('&amp;lt;'), false, 'escaped once');
});

test('a GitHub status description is cut at 140 code points with an ellipsis, never inside a character', () => {
  const receiver = openReceiver({ name: 'gh', type: 'github-status', urlEnv: 'GH', urlFile: null, secretEnv: null, events: null, sources: null, statusUrl: null }, { GH: 'https://api.github.example/repos/o/r' });
  const long = `${'a'.repeat(138)}😀😀😀 and more`;
  const body = JSON.parse(receiver.status('failure', report(), long)?.body ?? '{}') as { description: string };
  assert.equal(Array.from(body.description).length, 140);
  assert.equal(body.description, `${'a'.repeat(138)}😀…`);
  assert.doesNotMatch(body.description, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/, 'no lone surrogate');
  const short = JSON.parse(receiver.status('success', report(), `${'b'.repeat(139)}😀`)?.body ?? '{}') as { description: string };
  assert.equal(short.description, `${'b'.repeat(139)}😀`, '140 code points are kept whole (141 UTF-16 units)');
});

test('a GitLab project given as group/project is one encoded segment; a numeric id or an encoded one stays', () => {
  assert.equal(gitlabProjectUrl('https://gitlab.example.com/api/v4/projects/group/sub/project'), 'https://gitlab.example.com/api/v4/projects/group%2Fsub%2Fproject');
  assert.equal(gitlabProjectUrl('https://gitlab.example.com/api/v4/projects/group%2Fproject/'), 'https://gitlab.example.com/api/v4/projects/group%2Fproject');
  assert.equal(gitlabProjectUrl('https://gitlab.example.com/api/v4/projects/42'), 'https://gitlab.example.com/api/v4/projects/42');
  const receiver = openReceiver({ name: 'gl', type: 'gitlab-status', urlEnv: 'GL', urlFile: null, secretEnv: null, events: null, sources: null, statusUrl: null }, { GL: 'https://gitlab.example.com/api/v4/projects/group/project' });
  const message = receiver.status('pending', report(), 'a pass is running', 'refs/heads/release');
  assert.equal(message?.url, 'https://gitlab.example.com/api/v4/projects/group%2Fproject/statuses/abc123');
  assert.equal((JSON.parse(message?.body ?? '{}') as { ref?: string }).ref, 'release');
  assert.equal((JSON.parse(receiver.status('pending', report(), 'x')?.body ?? '{}') as { ref?: string }).ref, undefined, 'no ref when unknown');
});
