/** The declared repos the suites use: one small sample repo, and real-world libraries. */
import path from 'node:path';
import { POLICY_SET, WORKSPACES } from './emulator.js';
import { REPO_ROOT } from './repo-root.js';

/** Real-world declared repos kept in the repository (see its SOURCES.md). */
export const CORPUS = path.join(REPO_ROOT, 'test/fixtures/corpus');

export const REQUIRE_TAGS = `import "tfplan/v2" as tfplan

main = rule {
  all tfplan.resource_changes as _, rc {
    rc.change.after.tags contains "owner"
  }
}
`;

export const LIMIT_SIZE = `import "tfplan/v2" as tfplan

allowed = ["t3.micro", "t3.small"]

main = rule {
  all tfplan.resource_changes as _, rc {
    rc.change.after.instance_type in allowed
  }
}
`;

export const DENY_PUBLIC = `package terraform.storage

import rego.v1

deny_public_buckets contains msg if {
  some rc in input.resource_changes
  rc.change.after.acl == "public-read"
  msg := sprintf("%s is public", [rc.address])
}
`;

/** The settings file of `require-tags` in `smallRepo()`, and the description and level it declares. */
export const REQUIRE_TAGS_SETTINGS = 'policies/security/require-tags.yaml';
export const REQUIRE_TAGS_DESCRIPTION = 'Every resource names its `owner`.';
export const REQUIRE_TAGS_LEVEL = 'soft-mandatory';

/**
 * The sample declared repo of the suites: both kinds, settings and defaults, a policy set and a pool, in the
 * organization of `exampleSeed()`.
 */
export function smallRepo(): Record<string, string> {
  return {
    'policies/security/require-tags.native': REQUIRE_TAGS,
    [REQUIRE_TAGS_SETTINGS]: `description: ${REQUIRE_TAGS_DESCRIPTION}\nenforcement-level: ${REQUIRE_TAGS_LEVEL}\n`,
    'policies/cost/limit-size.native': LIMIT_SIZE,
    'policies/cost/audit-only.native': 'main = rule { true }\n',
    'policies/storage/deny-public.rego': DENY_PUBLIC,
    'policies/storage/deny-public.yaml': `query: data.terraform.storage.deny_public_buckets\nenforcement-level: mandatory\npolicy-sets: [${POLICY_SET}]\n`,
    'agent-pools/build.yaml': `organization-scoped: false\nallowed-workspaces: [${WORKSPACES[0]!.id}]\n`,
  };
}

/** `count` native policies `policies/<prefix>-<i>.native`, each with code of its own. */
export function manyPolicies(count: number, prefix: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i += 1) files[`policies/${prefix}-${i}.native`] = `main = rule { ${i} >= 0 }\n`;
  return files;
}
