import { POLICY_SET, WORKSPACES } from './world.js';

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

/** A small repo with both kinds, settings, defaults, a policy set and a pool. */
export function smallRepo(): Record<string, string> {
  return {
    'policies/security/require-tags.native': REQUIRE_TAGS,
    'policies/security/require-tags.yaml': 'description: Every resource names its `owner`.\nenforcement-level: soft-mandatory\n',
    'policies/cost/limit-size.native': LIMIT_SIZE,
    'policies/cost/audit-only.native': 'main = rule { true }\n',
    'policies/storage/deny-public.rego': DENY_PUBLIC,
    'policies/storage/deny-public.yaml': `query: data.terraform.storage.deny_public_buckets\nenforcement-level: mandatory\npolicy-sets: [${POLICY_SET}]\n`,
    'agent-pools/build.yaml': `organization-scoped: false\nallowed-workspaces: [${WORKSPACES[0]!.id}]\n`,
  };
}
