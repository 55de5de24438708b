// The audit console's entry: the status bar (key id, latest checkpoint), the token field, the
// filtered decisions table with its chart, the opened decision, key and policy history, range
// replay, and the offline bundle check. Opened from a file, only the bundle check is live.
// The styles are a file of their own (not a <style> in index.html): the console's
// Content-Security-Policy allows no inline style or script (src/http/console-headers.ts).
import './console.css';
import { getToken, isOffline, setToken } from './api.js';
import { renderBundlePanel } from './bundle-panel.js';
import { renderDecision } from './decision-view.js';
import { byId, h, replaceChildren } from './dom.js';
import { renderReplayForm } from './replay-panel.js';
import { refreshStatus } from './status-bar.js';
import { renderHistoryPanel } from './history-panel.js';
import { loadPage, renderHeader } from './table.js';

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

function start(): void {
  byId('bundle-slot').append(renderBundlePanel());
  if (isOffline()) {
    byId('online').hidden = true;
    void refreshStatus(byId('status'));
    return;
  }
  byId('replay-slot').append(renderReplayForm());
  renderHeader();
  const token = byId<HTMLInputElement>('token');
  token.value = getToken();
  token.addEventListener('change', () => {
    setToken(token.value.trim());
    void refresh();
  });
  const refresh = async () => {
    byId('history-slot').replaceChildren(renderHistoryPanel());
    await Promise.all([refreshStatus(byId('status')), loadPage(0, (s) => void open(s), [])]);
  };
  byId('filters').addEventListener('submit', (e) => {
    e.preventDefault();
    void loadPage(0, (s) => void open(s), []);
  });
  void refresh().then(() => document.body.setAttribute('data-ready', 'true'));
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
