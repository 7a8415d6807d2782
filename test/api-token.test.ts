import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createRedactor } from '../src/redact.js';
import { describe, it } from 'node:test';
import { errors as undiciErrors } from 'undici';
import { ApiClient } from '../src/api/client.js';
import { describeFailure } from '../src/api/transport-failure.js';
import { Transport } from '../src/api/transport.js';
import { parseConfig } from '../src/config/load.js';
import { resolveToken } from '../src/config/token.js';
import { UsageError } from '../src/errors.js';
import { captureLogs } from './helpers/logs.js';
import { smallRepo } from './helpers/repos.js';
import { tempTree } from './helpers/temp-tree.js';
import { VirtualClock } from './helpers/virtual-clock.js';
import { useWorld } from './helpers/world.js';
import { runCli } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';

const MINIMAL = 'sources:\n  - { name: s, organization: o, path: . }\n';
const SECRET = 'tok-Secret4711';

/** Tokens that cannot go in a header: what each is, and what the error must say. */
const BROKEN: Array<{ title: string; token: string; says: RegExp }> = [
  { title: 'a second line', token: `${SECRET}\nsecond-line`, says: /line break at character 15 of 26/ },
  { title: 'a carriage return inside', token: `${SECRET}\rx`, says: /line break/ },
  { title: 'a control character', token: `${SECRET}\u0001`, says: /control character at character 15/ },
  { title: 'a typographic quote', token: `\u201C${SECRET}\u201D`, says: /non-ASCII character at character 1 /},
  { title: 'a space inside', token: `Bearer ${SECRET}`, says: /space at character 7/ },
];

describe('an API token that cannot go in a header is refused at start-up, without showing it', () => {
  for (const c of BROKEN) {
    it(`API_TOKEN with ${c.title}`, async (t) => {
      const config = await parseConfig(MINIMAL, 'cfg.yaml', {}, { cwd: await tempTree(t) });
      const error = await resolveToken(config, { API_TOKEN: c.token }).then(() => assert.fail('accepted'), (e: unknown) => e);
      assert.ok(error instanceof UsageError, String(error));
      assert.match(error.message, /^API_TOKEN: the API token /);
      assert.match(error.message, c.says);
      assert.ok(!error.message.includes(SECRET), error.message);
    });
  }

  it('api.token-file: one trailing line end is dropped; a second line, or anything else inside, is refused', async (t) => {
    const dir = await tempTree(t);
    const file = path.join(dir, 'token');
    const config = await parseConfig(`api: { token-file: ${file} }\n${MINIMAL}`, 'cfg.yaml', {}, { cwd: dir });
    for (const ending of ['', '\n', '\r\n']) {
      await writeFile(file, `${SECRET}${ending}`);
      assert.equal(await resolveToken(config, {}), SECRET, JSON.stringify(ending));
    }
    for (const text of [`${SECRET}\nother\n`, `${SECRET}\n\n`, ` ${SECRET}\n`, `${SECRET}\t\n`, `\u2018${SECRET}\u2019\n`]) {
      await writeFile(file, text);
      const error = await resolveToken(config, {}).then(() => assert.fail(`accepted ${JSON.stringify(text)}`), (e: unknown) => e);
      assert.ok(error instanceof UsageError, String(error));
      assert.ok(error.message.startsWith(`api.token-file ${file}: the API token contains`), error.message);
      assert.ok(!error.message.includes(SECRET), error.message);
    }
  });

  it('the client refuses such a token when it is made, so no request is ever tried with it', () => {
    const { logger } = captureLogs();
    for (const c of BROKEN) {
      assert.throws(() => new ApiClient({ baseUrl: 'http://127.0.0.1:9/api/v2', token: c.token, logger }), (e: unknown) => {
        return e instanceof UsageError && c.says.test(e.message) && !e.message.includes(SECRET);
      }, c.title);
    }
  });

  describe('--reconcile with such a token', () => {
    const fixture = useWorld();
    it('exits 1 with the reason on stderr, the token nowhere, and no request sent', async () => {
      const world = fixture.world;
      const dir = await fixture.repo(smallRepo());
      await world.clearRequests();
      const token = `${world.token}\nsecond-line`;
      const run = await runCli(['--reconcile', '--source-dir', dir, '--organization', ORG, '--api-url', world.url], {
        env: { API_TOKEN: token, LOG_LEVEL: 'warn', STATE_DIR: world.stateDir },
      });
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.match(run.stderr, /^error: API_TOKEN: the API token contains a line break at character \d+ of \d+/);
      assert.ok(!`${run.stdout}${run.stderr}`.includes(world.token), 'the token is not shown');
      assert.deepEqual(await world.requests(), []);
    });

    it('the daemon refuses to start with it: exit 1, the reason, no request', async () => {
      const world = fixture.world;
      const dir = await fixture.repo(smallRepo());
      const config = path.join(await fixture.repo({}), 'config.yaml');
      await writeFile(config, `api: { url: "${world.url}" }\nsources:\n  - { name: main, organization: ${ORG}, path: "${dir}" }\nlisten: "127.0.0.1:0"\nstate-dir: "${world.stateDir}"\n`);
      await world.clearRequests();
      const run = await runCli(['--config', config], { env: { API_TOKEN: `\u201C${world.token}\u201D`, LOG_LEVEL: 'warn' } });
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.match(run.stderr, /error: API_TOKEN: the API token contains a non-ASCII character at character 1 /);
      assert.ok(!`${run.stdout}${run.stderr}`.includes(world.token));
      assert.deepEqual(await world.requests(), []);
    });
  });
});

describe('failed requests never hold a connection, and invalid ones are never retried', () => {
  it('a request refused as invalid (UND_ERR_INVALID_ARG) is a failure that is not retried', () => {
    const failure = describeFailure(new undiciErrors.InvalidArgumentError('invalid authorization header'), null, createRedactor([SECRET]));
    assert.equal(failure.code, 'UND_ERR_INVALID_ARG');
    assert.equal(failure.retryable, false);
    assert.equal(failure.maybeSent, false);
    assert.equal(describeFailure(Object.assign(new Error('reset'), { code: 'ECONNRESET' }), null, createRedactor([SECRET])).retryable, true);
  });

  describe('a body left unread on an error path', () => {
    const fixture = useWorld();
    it('goes back to the pool: many more failures than connections, and the next request still settles', async () => {
      const world = fixture.world;
      const { logger } = captureLogs();
      // One connection at a time and three in the pool: a leak would stall the fourth request for good.
      const transport = new Transport({
        baseUrl: world.url, token: world.token, logger, rateLimit: 'auto', concurrency: 1, timeoutMs: 60_000, maxRetries: 0, retryBudgetMs: 60_000,
        clock: new VirtualClock({ autoAdvance: true }), userAgent: 'test',
      });
      try {
        const url = transport.url(`/organizations/${ORG}/policies`);
        const broken = async (): Promise<never> => {
          throw new Error('the reader gave up before reading');
        };
        for (let i = 0; i < 8; i += 1) {
          await assert.rejects(withDeadline(transport.send({ method: 'GET', url, consume: broken })), /the reader gave up|failed/);
        }
        const response = await withDeadline(transport.send({ method: 'GET', url }));
        assert.equal(response.status, 200);
      } finally {
        await withDeadline(transport.close());
      }
    });
  });
});

/** Rejects when `promise` has not settled within a generous bound: a request that never settles fails the test instead of hanging it. */
function withDeadline<T>(promise: Promise<T>, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
