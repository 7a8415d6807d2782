/** What the evidence and rollout suites share: an organization's workspaces, and a repo of one policy in one global set. */

export const EVIDENCE_WORKSPACES = [
  { id: 'ws-AppProd000001', name: 'app-prod' },
  { id: 'ws-DataProd00001', name: 'data-prod' },
  { id: 'ws-WebDev0000001', name: 'web-dev' },
  { id: 'ws-Sandbox000001', name: 'sandbox' },
];

/** A repo with one policy in one global set, at `level`, and its settings' other lines. */
export function s3Repo(level: string, more = ''): Record<string, string> {
  return {
    'policy-sets/all.yaml': 'global: true\n',
    'policies/s3-encryption.native': 'main = rule { true }\n',
    'policies/s3-encryption.yaml': `enforcement-level: ${level}\npolicy-sets: [all]\n${more}`,
  };
}
