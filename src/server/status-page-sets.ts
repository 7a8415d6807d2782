import { html, type SafeHtml } from './html.js';
import type { SetVersionStatus } from '../operations/policy-set-versions.js';
import type { SourceStatus } from './status.js';

const STATE_TONES: Record<string, string> = { ready: 'ok', ingressing: 'warn', pending: 'warn', errored: 'bad', canceled: 'bad' };

/** The source's policy sets: each one's version, that version's state, and whether the service enforces it. */
export function setVersionsTable(status: SourceStatus): SafeHtml | '' {
  const sets = status.policySets ?? [];
  if (sets.length === 0) return '';
  return html`<h3>Policy sets</h3>
<table class="sets">
<thead><tr><th>Set</th><th>Version</th><th>State</th><th>Enforced</th></tr></thead>
<tbody>${sets.map((set) => html`<tr><td>${set.name}</td>${versionCells(set)}</tr>`)}</tbody>
</table>`;
}

function versionCells(set: SetVersionStatus): SafeHtml {
  if (set.id === null) return html`<td colspan="3" class="quiet">not created yet</td>`;
  if (!set.versioned) return html`<td colspan="3" class="quiet">no versions: its policies are its members</td>`;
  if (set.version === null) return html`<td colspan="3" class="quiet">no version uploaded yet</td>`;
  const state = set.state ?? 'unknown';
  const tone = STATE_TONES[state] ?? 'idle';
  const error = set.error === null ? '' : html` <span class="quiet">${set.error}</span>`;
  const enforced = set.enforced === true ? html`<span class="badge ok">enforced</span>`
    : html`<span class="badge warn">not enforced</span> <span class="quiet">${set.currentVersion === null ? 'no version is enforced' : `the service enforces ${set.currentVersion}`}</span>`;
  return html`<td><code>${set.version}</code></td><td><span class="badge ${tone}">${state}</span>${error}</td><td>${enforced}</td>`;
}
