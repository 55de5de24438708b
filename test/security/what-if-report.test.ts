// The what-if Markdown report carries names from logged traffic (tool names, principals, Cedar
// messages). Attacker: a caller who names a tool or itself so as to inject markup into the report
// an auditor reads (break out of the table, add HTML, a link, fake a row). Real log, real Cedar.
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { activatePolicy, decide } from '../../src/decide/index.js';
import { whatIf } from '../../src/audit/index.js';
import { mdCode, whatIfMarkdown } from '../../src/audit/what-if-format.js';
import { storeReplaySource } from '../../src/audit/node-bundle.js';
import { createMemoryStateStores } from '../../src/interceptors/builtin/index.js';
import { loadConfigFile } from '../../src/policy/load-config.js';
import { logPortOf } from '../../src/store/log-port.js';
import { logPath, openSqliteStore } from '../../src/store/node.js';
import { BASE_TIME, FIXTURE_CONFIG, generateLog } from '../audit/_generate.js';

const EVIL_TOOL = 'x` | 9 | deny → allow | <img src=x onerror=alert(1)> | [click](https://evil.example) |\n| 1 | ``fake``';
const EVIL_WHO = 'mallory\\|<script>alert(1)</script>``';

/** GFM cells: split on pipes not escaped by a backslash (the table scanner's rule). */
const cells = (row: string) => row.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());

/** What a cell holds once its code spans (CommonMark: closed by a run of equal length) are removed. */
function outsideCodeSpans(cell: string): string {
  let out = '';
  for (let i = 0; i < cell.length; ) {
    if (cell[i] !== '`') { out += cell[i++]; continue; }
    let n = 0;
    while (cell[i + n] === '`') n++;
    const close = new RegExp(`(?<!\`)\`{${n}}(?!\`)`, 'g');
    close.lastIndex = i + n;
    const m = close.exec(cell);
    if (!m) { out += cell.slice(i, i + n); i += n; continue; }
    i = m.index + n;
  }
  return out;
}

describe('what-if Markdown report: hostile names stay text', () => {
  it('a crafted tool name and principal cannot add cells, rows, HTML or links', async () => {
    const g = await generateLog(0);
    const t = g.dataDir.log('default');
    const port = logPortOf(t.origin, t.store, t.appender);
    const time = new Date(BASE_TIME).toISOString();
    const d = await decide({ event: 'tools/call', phase: 'request', payload: { name: EVIL_TOOL, arguments: {} }, context: { time, tenant: 'default', principal: EVIL_WHO, roles: ['user'], server: 'everything' } }, { policy: g.policy, log: port });
    expect(d.effect).toBe('deny'); // default deny: no permit names this tool
    await g.close();
    // A candidate that permits every call flips the default deny to allow.
    const dir = mkdtempSync(join(tmpdir(), 'vouch-md-cand-'));
    writeFileSync(join(dir, 'replay-policy.cedar'), readFileSync(join(FIXTURE_CONFIG, '..', 'replay-policy.cedar'), 'utf8') + '\n@id("all-calls")\npermit(principal, action == Action::"tools/call", resource);\n');
    copyFileSync(FIXTURE_CONFIG, join(dir, 'c.yaml'));
    const candidate = await activatePolicy(await loadConfigFile(join(dir, 'c.yaml')), { state: createMemoryStateStores(), remote: 'offline' });
    const store = openSqliteStore(logPath(g.dir, 'default'), { readonly: true });
    try {
      const r = await whatIf(storeReplaySource(store), candidate);
      expect(r.flips).toHaveLength(1);
      expect(r.flips[0]).toMatchObject({ from: 'deny', to: 'allow', principal: EVIL_WHO });
      expect(r.flips[0].after).toEqual([{ interceptor: 'authz', policies: ['all-calls'], message: 'permitted by policy all-calls' }]);
      const md = whatIfMarkdown(r, { candidate: 'c.yaml|<b>x</b>' });
      const rows = md.split('\n').filter((l) => l.startsWith('| '));
      // One flip row, seven cells; every hostile value only inside code spans.
      const flipRows = rows.filter((l) => /^\| \d/.test(l));
      expect(flipRows).toHaveLength(1);
      expect(cells(flipRows[0])).toHaveLength(7);
      for (const c of cells(flipRows[0]).slice(2)) expect(outsideCodeSpans(c).replace(/<br>/g, '').trim()).toBe('');
      for (const row of rows) expect(outsideCodeSpans(row)).not.toMatch(/<(?!br>)|\]\(/);
      expect(cells(rows.find((l) => l.startsWith('| Candidate |'))!)).toHaveLength(2);
    } finally {
      store.close();
      await candidate.close();
    }
  });

  it('mdCode: every backtick run, pipe and line break is neutralised', () => {
    for (const s of ['a`b', '``', '`x`', ' lead', 'a|b', 'a\\|b', 'line\nbreak|`', '<script>']) {
      const c = mdCode(s);
      expect(c).not.toMatch(/[\r\n]/);
      expect(c.split(/(?<!\\)\|/)).toHaveLength(1);
      expect(outsideCodeSpans(c)).toBe('');
    }
  });
});
