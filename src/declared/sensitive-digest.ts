import type { DeclaredPolicySet } from './types.js';

/**
 * Each policy set with sensitive parameters gets the keyed digest of their keys and values (`keyedDigest`: the API's
 * HMAC with its token), which its marker records: a changed sensitive value is noticed without being kept anywhere.
 */
export function withSensitiveDigests(sets: readonly DeclaredPolicySet[], keyedDigest: (text: string) => string): DeclaredPolicySet[] {
  return sets.map((set) => {
    const sensitive = (set.parameters ?? []).filter((p) => p.sensitive).map((p) => [p.key, p.value]);
    return sensitive.length === 0 ? set : { ...set, sensitiveDigest: keyedDigest(JSON.stringify([set.name, sensitive])) };
  });
}
