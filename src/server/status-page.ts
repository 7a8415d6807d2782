import type { ChangeAction } from '../plan/types.js';
import { html, SafeHtml } from './html.js';
import type { PassChangeOutcome, PassRecord } from '../operations/pass-record.js';
import type { SourceStatus } from './status.js';
import { STATUS_PAGE_SCRIPT, STATUS_PAGE_SCRIPT_HASH, UPDATE_SECONDS } from './status-page-script.js';
import { changedNames, driftFact, leadershipBanner, poolWarnings, rolloutList, stateFacts } from './status-page-parts.js';
import { setVersionsTable } from './status-page-sets.js';
import type { LeadershipStatus } from './standby.js';
import { count } from '../plural.js';

/**
 * What the page may load: its own inline style, its one script (by hash), and the page itself again (the script's
 * update); no image, no other script, no external asset.
 */
export const STATUS_PAGE_CSP =
  `default-src 'none'; style-src 'unsafe-inline'; script-src ${STATUS_PAGE_SCRIPT_HASH}; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/**
 * The read-only status page (`/status.html` and `/`): each source's last pass, its drift over the kept history
 * as an inline SVG, and its changes with their outcomes. Rendered here, from the same data as `/status?history=1`;
 * no script, no external asset, every value escaped. Under leader election it says first whether this replica leads.
 */
export function renderStatusPage(statuses: readonly SourceStatus[], now: Date, leadership: LeadershipStatus | null = null): string {
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>policy-pool-sync status</title>
<style>${new SafeHtml(STYLE)}</style>
</head>
<body>
<header>
<h1>policy-pool-sync</h1>
<p class="meta">${count(statuses.length, 'source')} · as of ${clock(now.toISOString())} · updates every ${UPDATE_SECONDS} s · <a href="/status?history=1">JSON</a></p>
</header>
<main>
${leadershipBanner(leadership)}
${statuses.length === 0 ? html`<p>No source is configured.</p>` : statuses.map((s) => sourceSection(s, now))}
</main>
<script>${new SafeHtml(STATUS_PAGE_SCRIPT)}</script>
</body>
</html>
`;
  return page.text;
}

function sourceSection(status: SourceStatus, now: Date): SafeHtml {
  const last = status.lastPass;
  const history = status.history ?? (last === null ? [] : [last]);
  return html`<section class="source" data-source="${status.name}">
<div class="head">
<h2>${status.name}</h2>
${badge(status)}
<span class="sub">organization <b>${status.organization}</b> · ${status.kind === 'git' ? 'git repository' : 'local folder'}</span>
</div>
<dl class="facts">
${fact('Last pass', last === null ? 'none yet' : html`${last.trigger}, ${when(last.finishedAt, now)}, took ${duration(last.durationMs)}`)}
${fact('Revision', last === null ? '–' : revision(last.revision, status.kind))}
${fact('Last success', status.lastSuccessAt === null ? 'never' : html`${when(status.lastSuccessAt, now)}${status.kind === 'git' ? html`, revision ${revision(status.lastAppliedRevision, status.kind)}` : ''}`)}
${fact('Next run', status.nextRunAt === null ? 'not scheduled' : when(status.nextRunAt, now))}
${fact('Changes', driftFact(status))}
${stateFacts(status)}
</dl>
${poolWarnings(status)}
${problems(status)}
${rolloutList(status)}
${setVersionsTable(status)}
<div class="drift">
<h3>Changes over the last ${count(history.length, 'pass', 'passes')}</h3>
${sparkline([...history].reverse())}
</div>
${last === null ? '' : changesTable(last)}
${last === null || last.warnings.length === 0 ? '' : html`<h3>Warnings</h3><ul class="warnings">${last.warnings.map((w) => html`<li>${w}</li>`)}</ul>`}
${history.length < 2 ? '' : historyTable(history, status.kind, now)}
</section>
`;
}

/** The last pass's errors (repo problems, refusals, failed changes), or the error that ended it before any (a fetch, a timeout). */
function problems(status: SourceStatus): SafeHtml | '' {
  const errors = status.lastPass?.errors ?? [];
  if (errors.length > 0) return html`<div class="error"><b>Errors</b><ul>${errors.map((e) => html`<li><pre>${e}</pre></li>`)}</ul></div>`;
  return status.error === null ? '' : html`<div class="error"><b>Last error</b><pre>${status.error}</pre></div>`;
}

function fact(label: string, value: unknown): SafeHtml {
  return html`<div><dt>${label}</dt><dd>${value}</dd></div>`;
}

const BADGES = {
  success: ['in sync', 'ok'],
  failure: ['failed', 'bad'],
  timeout: ['timed out', 'warn'],
  'handed-over': ['handed over', 'idle'],
  none: ['no pass yet', 'idle'],
} as const;

/** The last pass's result (`applied` when it changed something), and `running` beside it while a pass runs. */
function badge(status: SourceStatus): SafeHtml {
  const [label, tone] = BADGES[status.result ?? 'none'];
  const text = status.result === 'success' && (status.lastPass?.drift ?? 0) > 0 ? 'applied' : label;
  return html`<span class="badge result ${tone}">${text}</span>${status.running ? html` <span class="badge running">running</span>` : ''}`;
}

const ACTIONS: Record<ChangeAction, string> = { create: '+ create', update: '~ update', replace: '-/+ replace', delete: '- delete' };
const OUTCOME_TONES: Record<PassChangeOutcome, string> = { applied: 'ok', failed: 'bad', skipped: 'idle', 'not-applied': 'idle' };

function changesTable(pass: PassRecord): SafeHtml {
  if (pass.drift === null) return html`<h3>Changes</h3><p class="quiet">The pass made no plan, so nothing is known about drift.</p>`;
  if (pass.drift === 0) return html`<h3>Changes</h3><p class="quiet">None: the API matched the declared repo.</p>`;
  const title = pass.liveDrift ? 'Drift found by the last pass: live values changed, the repo did not' : 'Changes of the last pass';
  return html`<h3>${title} (${pass.drift})</h3>
<table class="changes">
<thead><tr><th>Action</th><th>Resource</th><th>Name</th><th>Reason</th><th>Outcome</th></tr></thead>
<tbody>
${pass.changes.map((c) => html`<tr class="${c.action}"><td class="action">${ACTIONS[c.action]}</td><td>${c.resource}</td><td class="name">${c.name}</td><td>${c.reason}</td><td><span class="badge ${OUTCOME_TONES[c.outcome] ?? 'idle'}">${c.outcome}</span>${c.message === null ? '' : html`<div class="message">${c.message}</div>`}</td></tr>`)}
${pass.changesOmitted === 0 ? '' : html`<tr><td colspan="5" class="quiet">… and ${pass.changesOmitted} more</td></tr>`}
</tbody>
</table>`;
}

function historyTable(history: readonly PassRecord[], kind: SourceStatus['kind'], now: Date): SafeHtml {
  return html`<details class="history"><summary>Recent passes</summary>
<table>
<thead><tr><th>Finished</th><th>Trigger</th><th>Result</th><th>Changes</th><th>Took</th>${kind === 'git' ? html`<th>Revision</th>` : ''}<th>Changed</th></tr></thead>
<tbody>
${history.map((p) => html`<tr><td>${when(p.finishedAt, now)}</td><td>${p.trigger}</td><td><span class="badge ${RESULT_TONES[p.result]}">${p.result}</span></td><td>${p.drift ?? '–'}</td><td>${duration(p.durationMs)}</td>${kind === 'git' ? html`<td>${revision(p.revision, kind)}</td>` : ''}<td class="name">${changedNames(p)}</td></tr>`)}
</tbody>
</table>
</details>`;
}

const RESULT_TONES: Record<PassRecord['result'], string> = { success: 'ok', failure: 'bad', timeout: 'warn', 'handed-over': 'idle' };
const BAR_COLOURS: Record<PassRecord['result'], string> = { success: '#2f855a', failure: '#c53030', timeout: '#b7791f', 'handed-over': '#a0aec0' };

/** One bar per pass, oldest on the left, as high as its changes; a pass without a plan is a grey tick. */
function sparkline(passes: readonly PassRecord[]): SafeHtml {
  if (passes.length === 0) return html`<p class="quiet">No pass has finished yet.</p>`;
  const width = 320;
  const height = 48;
  const step = width / Math.max(passes.length, 10);
  const max = Math.max(1, ...passes.map((p) => p.drift ?? 0));
  const bars = passes.map((p, i) => {
    const x = (i * step + 1).toFixed(1);
    const w = Math.max(2, step - 2).toFixed(1);
    const h = p.drift === null ? 3 : Math.max(2, (p.drift / max) * (height - 4));
    const colour = p.drift === null ? '#a0aec0' : BAR_COLOURS[p.result];
    const label = `${p.finishedAt}: ${p.drift === null ? 'no plan' : `${count(p.drift, 'change')}${p.liveDrift ? ' (drift)' : ''}`}, ${p.result}`;
    return html`<rect x="${x}" y="${(height - h).toFixed(1)}" width="${w}" height="${h.toFixed(1)}" fill="${colour}"><title>${label}</title></rect>`;
  });
  const latest = passes[passes.length - 1];
  return html`<div class="spark"><svg role="img" aria-label="changes per pass, oldest first" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><line x1="0" y1="${height - 0.5}" x2="${width}" y2="${height - 0.5}" stroke="#cbd5e0"/>${bars}</svg><span class="quiet">${passes.some((p) => p.drift !== null) ? `max ${max} · latest ${latest?.drift ?? 'no plan'}` : 'no plan made yet'}</span></div>`;
}

function revision(value: string | null, kind: SourceStatus['kind']): SafeHtml {
  if (value === null) return html`<span class="quiet">${kind === 'git' ? 'not fetched' : 'local folder'}</span>`;
  return html`<code title="${value}">${value.slice(0, 12)}</code>`;
}

/** `2026-05-01 12:00:03 UTC (2 min ago)`. */
function when(iso: string, now: Date): SafeHtml {
  return html`<time datetime="${iso}">${clock(iso)}</time> <span class="quiet">(${relative(Date.parse(iso) - now.getTime())})</span>`;
}

function clock(iso: string): string {
  return iso.replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC');
}

function relative(deltaMs: number): string {
  const seconds = Math.round(Math.abs(deltaMs) / 1000);
  const text = seconds < 60 ? `${seconds} s` : seconds < 3600 ? `${Math.round(seconds / 60)} min` : seconds < 172_800 ? `${Math.round(seconds / 3600)} h` : `${Math.round(seconds / 86_400)} d`;
  return deltaMs > 0 ? `in ${text}` : `${text} ago`;
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

const STYLE = `
:root { color-scheme: light; --fg: #1a202c; --muted: #5a6578; --line: #e2e8f0; --bg: #f7f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 16px 24px; background: #1a202c; color: #fff; }
header h1 { margin: 0; font-size: 20px; }
header .meta { margin: 4px 0 0; color: #cbd5e0; }
header a { color: #90cdf4; }
main { padding: 16px 24px; max-width: 1200px; }
.source { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 16px 20px; margin-bottom: 16px; }
.head { display: flex; align-items: baseline; gap: 12px; flex-wrap: wrap; }
.head h2 { margin: 0; font-size: 18px; overflow-wrap: anywhere; }
.sub { color: var(--muted); }
h3 { font-size: 14px; margin: 16px 0 6px; }
.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: 6px 24px; margin: 12px 0 0; }
.facts dt { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.facts dd { margin: 0; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; }
.ok { background: #c6f6d5; color: #22543d; }
.bad { background: #fed7d7; color: #822727; }
.warn { background: #feebc8; color: #7b341e; }
.running { background: #bee3f8; color: #2a4365; }
.idle { background: #edf2f7; color: #4a5568; }
.quiet { color: var(--muted); }
.leadership { margin: 0 0 16px; padding: 8px 12px; background: #fff; border: 1px solid var(--line); border-radius: 8px; }
.error { margin-top: 12px; padding: 8px 12px; border-left: 4px solid #c53030; background: #fff5f5; }
pre { margin: 4px 0 0; white-space: pre-wrap; overflow-wrap: anywhere; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
.spark { display: flex; align-items: flex-end; gap: 12px; }
.spark svg { background: #fbfcfd; border: 1px solid var(--line); border-radius: 4px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; }
td.name { overflow-wrap: anywhere; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
td.action { white-space: nowrap; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
tr.create td.action { color: #2f855a; } tr.update td.action { color: #b7791f; } tr.replace td.action { color: #6b46c1; } tr.delete td.action { color: #c53030; }
.message { color: #822727; font-size: 12px; margin-top: 2px; overflow-wrap: anywhere; }
ul.warnings li, .error li { margin-bottom: 4px; overflow-wrap: anywhere; }
.error ul { margin: 4px 0 0; padding-left: 18px; }
ul.warnings { color: #7b341e; }
details.history { margin-top: 16px; }
details.history summary { cursor: pointer; font-weight: 600; }
`;
