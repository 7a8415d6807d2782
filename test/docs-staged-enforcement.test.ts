/**
 * Every example of docs/staged-enforcement.md holds: each fenced block is checked by what it shows. A plan's lines are
 * what the renderers' words make of the evidence the JSON example gives; the JSON example is valid under the published
 * schema; the config loads; a policy's settings with a rollout are read as the repo would be; the Rollouts line is
 * the renderer's; the vendor's policy the FSBP steps name is in the library. The shell session of "Try it locally"
 * runs in test/pipeline/docs-staged-enforcement.test.ts. A block no check knows fails the suite.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { loadConfig } from '../src/config/load.js';
import { readDeclared } from '../src/declared/index.js';
import { blockingLine, evidenceLine, heldBackLine, levelLines, policyLines, rolloutLine } from '../src/output/evidence-words.js';
import type { ChangeEvidence } from '../src/plan/evidence.js';
import { REPO_ROOT } from './helpers/repo-root.js';
import { useTempTrees } from './helpers/temp-tree.js';

const DOC = readFileSync(join(REPO_ROOT, 'docs/staged-enforcement.md'), 'utf8');

interface Block {
  lang: string;
  body: string;
  line: number;
  /** The heading of the section it is in. */
  section: string;
}

const blocks: Block[] = [...DOC.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => {
  const before = DOC.slice(0, m.index);
  return { lang: m[1]!, body: m[2]!, line: before.split('\n').length, section: [...before.matchAll(/^## (.*)$/gm)].at(-1)?.[1] ?? '' };
});

/** The evidence the JSON example gives. */
function jsonEvidence(): ChangeEvidence {
  const block = blocks.find((b) => b.lang === 'json' && b.body.includes('"evidence"'));
  assert.ok(block, 'the JSON example of evidence');
  return (JSON.parse(`{${block.body}}`) as { evidence: ChangeEvidence }).evidence;
}

/** The comment lines of a plan block (`# …`), trimmed. */
const comments = (body: string) => body.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('# ')).map((l) => l.slice(2).trimEnd());

const dirOf = useTempTrees('pps-doc-staged-');

/** Each check: which blocks it takes, and what it holds of them. */
const CHECKS: Array<{ name: string; takes: (b: Block) => boolean; check: (b: Block) => Promise<void> | void }> = [
  {
    name: 'a policy\'s raise: its evidence and block lines are the words of the JSON example\'s evidence',
    takes: (b) => b.lang === '' && b.body.includes('resource "policy" "s3-encryption"'),
    check: (b) => {
      const e = jsonEvidence();
      assert.deepEqual(comments(b.body), [evidenceLine(e), `! ${blockingLine(e)!}`]);
      assert.match(b.body, /~ enforcement-level = "advisory" -> "hard-mandatory"/);
    },
  },
  {
    name: 'the JSON evidence is valid under schemas/plan.schema.json',
    takes: (b) => b.lang === 'json' && b.body.includes('"evidence"'),
    check: () => {
      const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'schemas/plan.schema.json'), 'utf8')) as { $id: string };
      const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true }).addSchema(schema);
      const validate = ajv.compile({ $ref: `${schema.$id}#/$defs/evidence` });
      assert.ok(validate(jsonEvidence()), JSON.stringify(validate.errors));
    },
  },
  {
    name: 'a versioned set\'s new content: the lines of its evidence with levels already enforced and unknown',
    takes: (b) => b.lang === '' && b.body.includes('already enforced at'),
    check: (b) => {
      const e: ChangeEvidence = {
        policies: ['s3-bucket-logging', 's3-bucket-public-access', 's3-bucket-versioning'], in_scope: 4, evaluated: 2, failing: ['app-prod', 'data-prod'], passing: 0,
        not_evaluated: 2, window: '30 days', partial: false, blocking: ['data-prod'],
        already_enforced: [{ policy: 's3-bucket-public-access', level: 'hard-mandatory' }], level_unknown: ['s3-bucket-logging'],
        by_policy: [
          { policy: 's3-bucket-versioning', level: 'hard-mandatory', failing: ['data-prod'], passing: 1, not_evaluated: 2, blocking: true },
          { policy: 's3-bucket-logging', level: 'hard-mandatory', failing: [], passing: 0, not_evaluated: 4, blocking: false },
        ],
      };
      const perPolicy = policyLines(e)!;
      assert.deepEqual(comments(b.body), [evidenceLine(e), ...levelLines(e), perPolicy.heading, ...perPolicy.lines.map((l) => `  ${l}`), `! ${blockingLine(e)!}`]);
    },
  },
  {
    name: 'the config with evidence: loads',
    takes: (b) => b.lang === 'yaml' && /^sources:/m.test(b.body),
    check: async (b) => {
      const file = join(await dirOf({}), 'config.yaml');
      await writeFile(file, b.body);
      const config = await loadConfig(file, {});
      assert.deepEqual(config.sources.map((s) => s.name), ['platform-policies']);
    },
  },
  {
    name: 'a policy\'s settings with a rollout: read as the repo would be, and as a YAML set\'s for its members',
    takes: (b) => b.lang === 'yaml' && /^rollout:/m.test(b.body) && /^enforcement-level:/m.test(b.body),
    check: async (b) => {
      const settings = parse(b.body) as { rollout: { 'clean-runs': number } };
      const { policies } = await readDeclared(await dirOf({
        'policies/own.sentinel': 'main = rule { true }\n', 'policies/own.yaml': b.body,
        'policy-sets/prod.yaml': `global: true\n${b.body}`, 'policies/member.sentinel': 'main = rule { true }\n', 'policies/member.yaml': 'policy-sets: [prod]\n',
      }));
      for (const policy of policies) {
        assert.equal(policy.enforcementLevel, 'hard-mandatory', policy.name);
        assert.equal(policy.rollout?.cleanRuns, settings.rollout['clean-runs'], policy.name);
      }
    },
  },
  {
    name: 'a versioned set\'s content under its rollout: the line of what the upload holds back',
    takes: (b) => b.lang === '' && b.body.includes('the upload holds back'),
    check: (b) => {
      const line = heldBackLine([{ name: 's3-block-public-access-bucket-level', level: 'advisory' }, { name: 's3-require-ssl', level: 'advisory' }]);
      assert.deepEqual(comments(b.body), [line]);
    },
  },
  {
    name: 'a versioned set\'s policy-set.yaml with a rollout: read as the repo would be',
    takes: (b) => b.lang === 'yaml' && /^rollout:/m.test(b.body) && !/^enforcement-level:/m.test(b.body),
    check: async (b) => {
      const { policySets } = await readDeclared(await dirOf({
        'policy-sets/fsbp/sentinel.hcl': 'policy "s3-require-ssl" {\n  source = "./s3-require-ssl.sentinel"\n  enforcement_level = "hard-mandatory"\n}\n',
        'policy-sets/fsbp/s3-require-ssl.sentinel': 'main = rule { true }\n', 'policy-sets/fsbp/policy-set.yaml': b.body,
      }));
      const rollout = (parse(b.body) as { rollout: { start: string; 'clean-runs': number } }).rollout;
      assert.deepEqual([policySets?.[0]?.rollout?.start, policySets?.[0]?.rollout?.cleanRuns], [rollout.start, rollout['clean-runs']]);
    },
  },
  {
    name: 'the Rollouts section: the renderer\'s line',
    takes: (b) => b.lang === '' && b.body.startsWith('Rollouts:\n'),
    check: (b) => {
      const line = rolloutLine({
        policy: 's3-encryption', state: 'held', start: 'advisory', level: 'hard-mandatory', startedAt: 0, readyAt: 0, waiting: false,
        cleanRuns: 12, neededRuns: 20, failing: ['app-prod'], allowedFailing: 0, errored: [], partial: false,
      });
      assert.equal(b.body, `Rollouts:\n  - ${line}\n`);
    },
  },
  {
    name: 'the session of "Try it locally": run by the pipeline tier',
    takes: (b) => b.lang === 'sh' && b.section === 'Try it locally',
    check: (b) => assert.match(b.body, /policy-pool-sync --emulator --port 8766 --emulator-seed seed\.yaml/),
  },
];

describe('docs/staged-enforcement.md', () => {
  it('every fenced block is one some check below holds', () => {
    for (const block of blocks) {
      assert.ok(CHECKS.some((c) => c.takes(block)), `docs/staged-enforcement.md:${block.line}: no check holds this example`);
    }
  });

  for (const check of CHECKS) {
    it(check.name, async () => {
      const taken = blocks.filter((b) => check.takes(b));
      assert.ok(taken.length > 0, 'the doc no longer has this example');
      for (const block of taken) await check.check(block);
    });
  }

  it('the FSBP steps name policies of the vendor\'s library', () => {
    const section = DOC.slice(DOC.indexOf('## Rolling out the vendor\'s FSBP set'));
    const library = readFileSync(join(REPO_ROOT, 'test/fixtures/corpus/fsbp-aws-set/sentinel.hcl'), 'utf8');
    const named = [...section.matchAll(/`(s3-[a-z-]+|ec2-[a-z-]+|iam-[a-z-]+)`/g)].map((m) => m[1]!);
    assert.ok(named.length > 0);
    for (const name of named) assert.ok(library.includes(`policy "${name}" {`), `${name} is not a policy of the FSBP library`);
  });
});
