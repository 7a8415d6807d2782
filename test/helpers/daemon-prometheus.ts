import assert from 'node:assert/strict';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  help: Map<string, string>;
  type: Map<string, string>;
  samples: Sample[];
}

/**
 * Parses the Prometheus text exposition format strictly enough to catch malformed output: every line is a
 * HELP, a TYPE or a sample; every sample belongs to a family that has both; label values are quoted.
 */
export function parseExposition(text: string): Exposition {
  const help = new Map<string, string>();
  const type = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta !== null) {
      (meta[1] === 'HELP' ? help : type).set(meta[2] ?? '', meta[3] ?? '');
      continue;
    }
    // prom-client writes a NaN gauge (the event-loop lag before any sample) as `Nan`; Prometheus reads either spelling.
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|NaN|Nan|[+-]Inf)(?: \d+)?$/.exec(line);
    assert.ok(sample !== null, `not a valid exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (sample[2] ?? '').match(/[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"/g) ?? []) {
      const eq = pair.indexOf('=');
      labels[pair.slice(0, eq)] = pair.slice(eq + 2, -1);
    }
    samples.push({ name: sample[1] ?? '', labels, value: Number(sample[3]) });
  }
  for (const s of samples) {
    const family = [s.name, s.name.replace(/_(bucket|sum|count|total)$/, '')].find((n) => type.has(n));
    assert.ok(family !== undefined && help.has(family), `sample ${s.name} has no HELP/TYPE`);
  }
  return { help, type, samples };
}

export function sampleValue(exposition: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  return exposition.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}
