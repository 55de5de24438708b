// The audit console's entry: the status bar (key id, latest checkpoint, witness lag), the token
// field, the decisions table newest first with its timeline and breakdowns, kept live by polling,
// the newest checkpoint's signatures and witness and timestamp status, the tool pins, the opened
// decision, key and policy history, range replay, and the bundle check. Opened from a file: key
// pinning, the bundle check and a receipt check, against the pinned keys.
// The styles are a file of their own (not a <style> in index.html): the console's
// Content-Security-Policy allows no inline style or script (src/http/console-headers.ts).
import './console.css';
import { getToken, isOffline, setToken } from './api.js';
import { renderBundlePanel } from './bundle-panel.js';
import { refreshCheckpointPanel } from './checkpoint-panel.js';
import { renderDecision } from './decision-view.js';
import { byId, h, replaceChildren } from './dom.js';
import { renderHistoryPanel } from './history-panel.js';
import { renderPinPanel } from './pinned-keys.js';
import { refreshPinsPanel } from './pins-panel.js';
import { renderReceiptPanel } from './receipt-panel.js';
import { renderReplayForm } from './replay-panel.js';
import { refreshStatus } from './status-bar.js';
import { DecisionList, renderHeader } from './table.js';

/** How often the newest page is polled while live (an unchanged log answers 304). */
const LIVE_MS = 2000;
/** Every this many polls the status bar and the checkpoint panel are read again even if no entry came. */
const STATUS_EVERY = 5;

async function open(seq: number): Promise<void> {
  const view = byId('decision');
  replaceChildren(view, `loading #${seq}…`);
  try {
    replaceChildren(view, await renderDecision(seq));
  } catch (e) {
    replaceChildren(view, h('div', { class: 'verdict fail' }, `cannot open #${seq}: ${(e as Error).message}`));
  }
  view.scrollIntoView({ block: 'start' });
}

function startOffline(): void {
  byId('online').hidden = true;
  const status = () => void refreshStatus(byId('status'));
  const receipt = renderReceiptPanel(undefined);
  byId('bundle-slot').append(renderPinPanel(status), renderBundlePanel(), receipt.element);
  status();
  document.body.setAttribute('data-ready', 'true');
}

function startOnline(): void {
  byId('bundle-slot').append(renderBundlePanel());
  byId('replay-slot').append(renderReplayForm());
  renderHeader();
  const list = new DecisionList((s) => void open(s));
  const token = byId<HTMLInputElement>('token');
  token.value = getToken();
  const panels = () => Promise.all([refreshStatus(byId('status')), refreshCheckpointPanel(byId('checkpoint-panel'))]);
  const refresh = async () => {
    byId('history-slot').replaceChildren(renderHistoryPanel());
    await Promise.all([panels(), list.load(), refreshPinsPanel(byId('pins-panel'))]);
  };
  token.addEventListener('change', () => {
    setToken(token.value.trim());
    void refresh();
  });
  byId('filters').addEventListener('submit', (e) => {
    e.preventDefault();
    void list.load();
  });
  byId('chart-split').addEventListener('change', () => list.drawCharts());

  // Live: poll the newest page; when the log grew, redraw it and what depends on it.
  const live = byId<HTMLInputElement>('live');
  const liveStatus = byId('live-status');
  let ticks = 0;
  const tick = async () => {
    if (!live.checked) liveStatus.textContent = 'live updates off';
    else if (!list.onNewest) liveStatus.textContent = 'live updates paused: an older page is shown';
    else if (!document.hidden) {
      try {
        const changed = await list.poll();
        if (changed) await Promise.all([panels(), refreshPinsPanel(byId('pins-panel'))]);
        else if (++ticks % STATUS_EVERY === 0) await panels();
        liveStatus.textContent = `live · checked ${new Date().toISOString().slice(11, 19)} UTC`;
        liveStatus.className = 'muted';
      } catch (e) {
        liveStatus.textContent = `live updates failing: ${(e as Error).message}`;
        liveStatus.className = 'bad';
      }
    }
    setTimeout(() => void tick(), LIVE_MS);
  };
  void refresh().then(() => {
    document.body.setAttribute('data-ready', 'true');
    setTimeout(() => void tick(), LIVE_MS);
  });
}

function start(): void {
  if (isOffline()) startOffline();
  else startOnline();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
