// Replay one decision or a range on the service (POST /v1/replay, the same engine as `vouch
// replay`): match, or mismatch with the differing paths, or unreplayable with the reason.
import { postJson } from './api.js';
import { h } from './dom.js';

export interface ReplayResponse {
  ok: boolean;
  from: number;
  to: number;
  decisions: number;
  match: number;
  mismatch: number;
  unreplayable: number;
  results: { seq: number; status: string; paths?: string[]; reason?: string; detail?: string }[];
  truncated: boolean;
}

export const replayRange = (from: number, to: number): Promise<ReplayResponse> => postJson<ReplayResponse>('/v1/replay', { from, to, all: true });

export function renderReplayResult(r: ReplayResponse): HTMLElement {
  const bad = r.results.filter((x) => x.status !== 'match');
  return h('div', { class: `report ${r.ok ? 'pass' : 'fail'}`, id: 'replay-result', 'data-ok': String(r.ok) },
    h('div', { class: `verdict ${r.ok ? 'pass' : 'fail'}` }, `${r.ok ? '✓' : '✗'} [${r.from}, ${r.to}): ${r.decisions} decisions · ${r.match} match · ${r.mismatch} mismatch · ${r.unreplayable} unreplayable`),
    bad.length ? h('ul', {}, ...bad.map((x) => h('li', { class: x.status === 'mismatch' ? 'bad' : 'warn' }, `#${x.seq} ${x.status}`, x.paths?.length ? `: ${x.paths.join(', ')}` : '', x.reason ? ` (${x.reason}${x.detail ? `: ${x.detail}` : ''})` : ''))) : null,
    r.truncated ? h('p', { class: 'warn' }, 'results truncated') : null);
}

export function renderReplayForm(): HTMLElement {
  const from = h('input', { id: 'replay-from', type: 'number', min: '0', value: '0' });
  const to = h('input', { id: 'replay-to', type: 'number', min: '0', placeholder: 'end' });
  const out = h('div', {});
  const run = async () => {
    out.replaceChildren('replaying…');
    try {
      const end = to.value === '' ? undefined : Number(to.value);
      out.replaceChildren(renderReplayResult(await postJson<ReplayResponse>('/v1/replay', { from: Number(from.value || 0), ...(end !== undefined && { to: end }), all: true })));
    } catch (e) {
      out.replaceChildren(h('div', { class: 'verdict fail' }, `✗ replay failed: ${(e as Error).message}`));
    }
  };
  return h('section', { class: 'panel', id: 'replay-panel' }, h('h3', {}, 'Replay a range'), 'from ', from, ' to ', to, ' ', h('button', { id: 'replay-run', onclick: () => void run() }, 'Replay'), out);
}
