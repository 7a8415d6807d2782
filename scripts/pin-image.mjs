#!/usr/bin/env node
// node scripts/pin-image.mjs KUSTOMIZATION NAME VERSION DIGEST
//
// Points the kustomization's image policy-pool-sync at NAME:VERSION@DIGEST (its images: entry's newName, newTag and
// digest), as the release workflow (.github/workflows/release.yml) does with the digest it pushed, so that a tag's
// manifests run exactly the image built for it. Only those three lines change; comments and the rest stay as written.
// Refuses, changing nothing, a name that is not a lower-case image name, a version that is not x.y.z, a digest that
// is not sha256 and 64 hex digits, or a kustomization without that entry.
import { readFileSync, writeFileSync } from 'node:fs';

const [file, name, version, digest] = process.argv.slice(2);
const fail = (message) => {
  process.stderr.write(`pin-image: ${message}\n`);
  process.exit(1);
};
if (digest === undefined) fail('usage: node scripts/pin-image.mjs KUSTOMIZATION NAME VERSION DIGEST');
if (!/^[a-z0-9]+([._-][a-z0-9]+)*(\.[a-z0-9-]+)*(:\d+)?(\/[a-z0-9]+([._-][a-z0-9]+)*)+$/.test(name)) fail(`"${name}" is not a lower-case image name such as ghcr.io/owner/policy-pool-sync`);
if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) fail(`"${version}" is not a version such as 1.2.3`);
if (!/^sha256:[0-9a-f]{64}$/.test(digest)) fail(`"${digest}" is not a digest such as sha256:<64 hex digits>`);

const text = readFileSync(file, 'utf8');
// The entry `- name: policy-pool-sync` under images:, with its indented keys.
const entry = /^(images:\n(?:[ \t]*#.*\n)*(?:(?:  - |    ).*\n)*?  - name: policy-pool-sync\n)((?:    (?:newName|newTag|digest): .*\n)*)/m;
if (!entry.test(text)) fail(`${file} has no images: entry "- name: policy-pool-sync"`);
writeFileSync(file, text.replace(entry, (_, head) => `${head}    newName: ${name}\n    newTag: "${version}"\n    digest: ${digest}\n`));
process.stdout.write(`${file}: policy-pool-sync is ${name}:${version}@${digest}\n`);
