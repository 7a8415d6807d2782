import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A native policy of about `bytes` bytes: a rule and filler lines that differ per policy. */
export function policyCode(index: number, bytes = 300): string {
  const lines = [`# generated policy ${index}`, 'import "tfplan/v2" as tfplan', '', `main = rule { length(tfplan.resource_changes) < ${index + 1} }`];
  let size = lines.join('\n').length;
  for (let line = 0; size < bytes; line += 1) {
    const text = `# filler ${index}-${line} ${'x'.repeat(60)}`;
    lines.push(text);
    size += text.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

/** Writes `count` native policies under `dir/policies/`, 100 per folder, each with a settings file every tenth. */
export async function writePolicies(dir: string, count: number, bytes = 300): Promise<void> {
  for (let start = 0; start < count; start += 100) {
    const folder = path.join(dir, 'policies', `group-${String(start / 100).padStart(4, '0')}`);
    await mkdir(folder, { recursive: true });
    const writes: Array<Promise<void>> = [];
    for (let i = start; i < Math.min(count, start + 100); i += 1) {
      const name = `policy-${String(i).padStart(6, '0')}`;
      writes.push(writeFile(path.join(folder, `${name}.native`), policyCode(i, bytes)));
      if (i % 10 === 0) writes.push(writeFile(path.join(folder, `${name}.yaml`), `description: generated policy ${i}\nenforcement-level: advisory\n`));
    }
    await Promise.all(writes);
  }
}
