// vouch replay --policy (what-if) through the CLI entry, on a real log and on an exported bundle:
// each flip names what decided before and now (Cedar policy ids), --fail-on-change gates CI,
// and the Markdown and JSON reports say the same. The bundle run reads nothing but the bundle.
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { loadKeys } from '../../src/store/node.js';
import { captureIo, FIXTURE_CONFIG, generateLog } from '../audit/_generate.js';

let data: string;
let bundle: string;
let cands: string;
const FORBID = '@id("tools-forbid-dangerous")\nforbid(principal, action == Action::"tools/call", resource == Tool::"dangerous_tool");';

async function vouch(...argv: string[]) {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, out: c.text(), err: c.errText() };
}

/** A candidate config next to its own Cedar file, in `cands`. */
function candidate(name: string, editPolicy: (cedar: string) => string): string {
  const d = mkdtempSync(join(cands, `${name}-`));
  writeFileSync(join(d, 'replay-policy.cedar'), editPolicy(readFileSync(join(FIXTURE_CONFIG, '..', 'replay-policy.cedar'), 'utf8')));
  copyFileSync(FIXTURE_CONFIG, join(d, 'candidate.yaml'));
  return join(d, 'candidate.yaml');
}

let opens: string; // deny -> allow on dangerous_tool
let closes: string; // allow -> deny on send_mail
let same: string; // flips nothing

beforeAll(async () => {
  const g = await generateLog(96, { concurrency: 48 });
  await g.close();
  data = g.dir;
  cands = mkdtempSync(join(tmpdir(), 'vouch-whatif-cands-'));
  opens = candidate('opens', (c) => c.replace(FORBID, '@id("tools-allow-dangerous")\npermit(principal, action == Action::"tools/call", resource == Tool::"dangerous_tool");'));
  closes = candidate('closes', (c) => c.replace('Tool::"send_mail", ', ''));
  same = candidate('same', (c) => c);
  bundle = join(mkdtempSync(join(tmpdir(), 'vouch-whatif-b-')), 'b.tar.gz');
  expect((await vouch('export', '--data', data, '--payloads', '-o', bundle)).code).toBe(0);
}, 120_000);

describe('vouch replay --policy: explained flips', () => {
  it('deny -> allow names the forbid that decided before and the permit that decides now', async () => {
    const r = await vouch('replay', '--data', data, '--policy', opens);
    expect(r.code).toBe(0); // no --fail-on-change: what-if only reports
    expect(r.out).toMatch(/seq\s+\d+ {2}deny -> allow {2}tools\/call Tool::"dangerous_tool" by \w+\n {4}before: authz \[tools-forbid-dangerous\]: denied by policy tools-forbid-dangerous\n {4}now: {4}authz \[tools-allow-dangerous\]: permitted by policy tools-allow-dangerous/);
    expect(r.out).not.toContain('allow -> deny');
  });

  it('allow -> deny names the permit that decided before and Cedar default deny now', async () => {
    const r = await vouch('replay', '--data', data, '--policy', closes);
    expect(r.out).toMatch(/allow -> deny {2}tools\/call Tool::"send_mail" by \w+\n {4}before: authz \[tools-allow\]: permitted by policy tools-allow\n {4}now: {4}authz \[no policy: default deny\]: denied by policy \(default deny\)/);
    expect(r.out).not.toContain('deny -> allow');
  });

  it('--fail-on-change exits 1 when anything flips and 0 when nothing does', async () => {
    expect((await vouch('replay', '--data', data, '--policy', opens, '--fail-on-change')).code).toBe(1);
    expect((await vouch('replay', '--data', data, '--policy', closes, '--fail-on-change')).code).toBe(1);
    const s = await vouch('replay', '--data', data, '--policy', same, '--fail-on-change');
    expect(s.code).toBe(0);
    expect(s.out).toMatch(/96 of 96 decisions evaluated: 0 allow->deny, 0 deny->allow, 96 unchanged/);
  });

  it('writes a Markdown and a JSON report that agree with each other and with stdout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-whatif-rep-'));
    const md = join(dir, 'r.md');
    const json = join(dir, 'r.json');
    expect((await vouch('replay', '--data', data, '--policy', closes, '--report', md)).code).toBe(0);
    expect((await vouch('replay', '--data', data, '--policy', closes, '--report', json, '--fail-on-change')).code).toBe(1);
    const j = JSON.parse(readFileSync(json, 'utf8'));
    expect(j).toMatchObject({ changed: true, candidateFile: closes, denyToAllow: 0, source: expect.stringContaining('tenant default in') });
    expect(j.flips.length).toBe(j.allowToDeny);
    expect(j.flips[0]).toMatchObject({
      from: 'allow', to: 'deny', resource: 'Tool::"send_mail"',
      before: [{ interceptor: 'authz', policies: ['tools-allow'], message: 'permitted by policy tools-allow' }],
      after: [{ interceptor: 'authz', policies: [], message: 'denied by policy (default deny): no permit matched Tool::"send_mail"' }],
    });
    const m = readFileSync(md, 'utf8');
    expect(m).toContain('**Decisions would change.**');
    expect(m).toContain(`| allow → deny | ${j.allowToDeny} |`);
    expect(m).toContain('| Seq | Change | Event | Target | Principal | Decided before | Decides now |');
    const rows = m.split('\n').filter((l) => /^\| \d+ \| allow → deny \|/.test(l));
    expect(rows.length).toBe(j.flips.length);
    expect(rows[0]).toContain('| `tools/call` | `Tool::"send_mail"` |');
    expect(rows[0]).toContain('| `authz [tools-allow]: permitted by policy tools-allow` | `authz [no policy: default deny]: denied by policy (default deny): no permit matched Tool::"send_mail"` |');
    // --format prints the same reports on stdout.
    expect((await vouch('replay', '--data', data, '--policy', closes, '--format', 'md')).out.trim()).toBe(m.trim());
    expect(JSON.parse((await vouch('replay', '--data', data, '--policy', closes, '--json')).out)).toEqual(j);
    // Nothing changes: the report says so.
    expect((await vouch('replay', '--data', data, '--policy', same, '--report', md)).code).toBe(0);
    expect(readFileSync(md, 'utf8')).toContain('No decision would change.');
    expect(readFileSync(md, 'utf8')).not.toContain('## Flips');
  });

  it('refuses options it cannot honour before doing any work', async () => {
    expect((await vouch('replay', '--data', data, '--policy', same, '--report', join(cands, 'r.txt'))).code).toBe(2);
    expect((await vouch('replay', '--data', data, '--policy', same, '--format', 'html')).code).toBe(2);
    expect((await vouch('replay', '--data', data, '--policy', same, '--json', '--format', 'md')).code).toBe(2);
    expect((await vouch('replay', '--data', data, '--fail-on-change')).code).toBe(2);
    expect((await vouch('replay', '--data', data, '--report', join(cands, 'r.md'))).code).toBe(2);
  });
});

describe('vouch replay --bundle --policy: offline', () => {
  it('explains flips and gates on them from a .tar.gz bundle alone (data dir gone)', async () => {
    // The log the bundle came from is removed: the bundle and the candidate are all there is.
    const copy = mkdtempSync(join(tmpdir(), 'vouch-whatif-only-'));
    const b = join(copy, 'b.tar.gz');
    copyFileSync(bundle, b);
    const none = join(copy, 'no-such-data');
    const o = await vouch('replay', '--bundle', b, '--data', none, '--policy', opens, '--fail-on-change');
    expect(o.code).toBe(1);
    expect(o.out).toMatch(/deny -> allow {2}tools\/call Tool::"dangerous_tool" by \w+\n {4}before: authz \[tools-forbid-dangerous\]: denied by policy tools-forbid-dangerous\n {4}now: {4}authz \[tools-allow-dangerous\]: permitted by policy tools-allow-dangerous/);
    const json = join(copy, 'r.json');
    const c = await vouch('replay', '--bundle', b, '--data', none, '--policy', closes, '--fail-on-change', '--report', json);
    expect(c.code).toBe(1);
    const j = JSON.parse(readFileSync(json, 'utf8'));
    expect(j).toMatchObject({ changed: true, source: b, denyToAllow: 0 });
    expect(j.flips.every((f: any) => f.before[0].policies[0] === 'tools-allow' && f.after[0].message === 'denied by policy (default deny): no permit matched Tool::"send_mail"')).toBe(true);
    const s = await vouch('replay', '--bundle', b, '--data', none, '--policy', same, '--fail-on-change', '--format', 'md');
    expect(s.code).toBe(0);
    expect(s.out).toContain('No decision would change.');
  });

  it('--key checks the bundle first: a forged entry stops the gate before any what-if runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-whatif-key-'));
    const keyFile = join(dir, 'trusted.vkey');
    writeFileSync(keyFile, loadKeys(data, 'vouch.local/default').keys.map((k) => k.vkey).join('\n') + '\n'); // the log's keys, under its origin
    const good = await vouch('replay', '--bundle', bundle, '--key', keyFile, '--policy', opens, '--fail-on-change');
    expect(good.code).toBe(1);
    expect(good.out).toContain('before: authz [tools-forbid-dangerous]');
    expect(good.err).not.toContain('not checked');
    // Unchecked: it still runs, and says on stderr that nothing vouched for the entries.
    expect((await vouch('replay', '--bundle', bundle, '--policy', same)).err).toContain('bundle entries not checked against a key');
    // An insider rewrites a recorded deny as an allow in a directory bundle, so that a candidate's
    // allow looks like "no change": with --key the gate refuses the bundle (exit 1).
    const dirBundle = join(dir, 'b');
    expect((await vouch('export', '--data', data, '--payloads', '-o', dirBundle)).code).toBe(0);
    const lines = readFileSync(join(dirBundle, 'entries.jsonl'), 'utf8').split('\n');
    const text = (l: string) => Buffer.from(JSON.parse(l).entry, 'base64').toString('utf8');
    const i = lines.findIndex((l) => l !== '' && text(l).includes('"effect":"deny"'));
    expect(i).toBeGreaterThanOrEqual(0);
    const forgedEntry = text(lines[i]).replace('"effect":"deny"', '"effect":"allow"');
    lines[i] = JSON.stringify({ seq: JSON.parse(lines[i]).seq, entry: Buffer.from(forgedEntry).toString('base64') });
    writeFileSync(join(dirBundle, 'entries.jsonl'), lines.join('\n'));
    // Unchecked, the forged entry is read as it is and the what-if believes it.
    expect((await vouch('replay', '--bundle', dirBundle, '--policy', same, '--json')).code).toBe(0);
    const forged = await vouch('replay', '--bundle', dirBundle, '--key', keyFile, '--policy', opens, '--fail-on-change');
    expect(forged.code).toBe(1);
    expect(forged.out).toBe('');
    expect(forged.err).toContain('the bundle does not verify');
    expect((await vouch('replay', '--data', data, '--key', keyFile)).code).toBe(2);
  });

  it('--fail-on-unevaluable fails when the bundle lacks payloads the candidate needs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-whatif-nop-'));
    const bare = join(dir, 'bare');
    expect((await vouch('export', '--data', data, '-o', bare)).code).toBe(0); // no --payloads
    const r = await vouch('replay', '--bundle', bare, '--policy', same, '--fail-on-change', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ evaluated: 0, changed: false, unevaluable: 96 });
    expect((await vouch('replay', '--bundle', bare, '--policy', same, '--fail-on-unevaluable')).code).toBe(1);
  });
});
