// RFC 3161 time-stamping in a running service (issue 41 part 2), against a TSA run here by openssl:
// checkpoints are stamped in the background at the configured cadence, the tokens kept verify with
// `openssl ts -verify` over the exact note bytes, receipts carry them and `vouch verify --tsa-cert`
// says "time-stamped by <TSA> at <genTime>". The attacker is a TSA that is down, failing or lying:
// decisions never wait for it, and every failure is counted in /metrics.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64, utf8 } from '../../src/canonical/index.js';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { openTimestampStore } from '../../src/timestamp/store.js';
import { runVouch } from '../helpers/cli.js';
import { get, post, writeConfig } from '../http/_server.js';
import { makeTestPki, opensslVerifyToken, startTestTsa, type TestTsa } from './_tsa.js';

const decide = (url: string, text: string) => post(`${url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text } } });
const until = async (f: () => Promise<boolean> | boolean, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
};

/**
 * Waits until a stamp covers entry `seq` (a stamped tree of size > seq), adding decisions when the
 * cadence needs them. With `everyEntries: N` a tree is stamped only once N more entries are signed
 * after the last stamp, so a fixed target ("size >= 7") is a race: had the stamper's tick seen size
 * 6 of 8, no stamp would ever reach 7. The condition is the settled state instead: the newest
 * checkpoint holds every entry and no stamp is due (or the stamp covers `seq`); only then is one
 * more decision made. Bounded: a few extra decisions, each wait 20 s.
 */
async function stampCovering(url: string, seq: number, everyEntries: number): Promise<void> {
  let entries = seq + 1;
  for (let extra = 0; extra <= everyEntries + 1; extra++) {
    let stamped = 0;
    await until(async () => {
      const cp = (await get(`${url}/v1/checkpoint`)).json;
      stamped = cp.timestamped?.size ?? 0;
      return stamped > seq || (cp.size >= entries && stamped > 0 && cp.size - stamped < everyEntries);
    });
    if (stamped > seq) return;
    const r = await decide(url, `cadence ${extra}`);
    expect(r.status).toBe(200);
    entries = r.json.seq + 1;
  }
  throw new Error(`no stamp covers entry ${seq}`);
}

/** Stamps kept in the service's timestamps.db (read-only beside it), oldest first. */
function storedStamps(data: string, origin: string) {
  const store = openTimestampStore(join(data, 'timestamps.db'), { readonly: true });
  try {
    return store.within(origin, 0, 1e9);
  } finally {
    store.close();
  }
}

/** Decisions until a stamp covers the last of them, and at least two stamps are kept. */
async function decideAndStamp(svc: { s: RunningServer; data: string }, n: number, label: string): Promise<void> {
  let last = -1;
  for (let i = 0; i < n; i++) {
    const r = await decide(svc.s.url, `${label} ${i}`);
    expect(r.status).toBe(200);
    last = r.json.seq;
  }
  await stampCovering(svc.s.url, last, 3);
  const origin = (await get(`${svc.s.url}/v1/checkpoint`)).json.origin;
  // Had the first tick come after the decisions, one stamp covers them all: one more round makes two.
  for (let round = 0; storedStamps(svc.data, origin).length < 2; round++) {
    if (round === 2) throw new Error('fewer than two stamps kept');
    const r = await decide(svc.s.url, `${label} again ${round}`);
    expect(r.status).toBe(200);
    await stampCovering(svc.s.url, r.json.seq, 3);
  }
}

function configWith(dir: string, timestamping: Record<string, unknown>): string {
  return writeConfig(dir, { version: 1, uncovered: [{ events: ['tools/call'], phase: 'both' }], interceptors: [{ name: 'pii', use: 'pii-redactor' }], timestamping });
}

async function serve(timestamping: Record<string, unknown>) {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-tsa-svc-'));
  const data = join(dir, 'data');
  const s = await startServer({ data, port: 0, config: configWith(dir, timestamping), idleCheckpointMs: 50, timestampTiming: { tickMs: 50, backoffMs: 50 } });
  return { s, dir, data };
}

describe('a service with a TSA configured', () => {
  let tsa: TestTsa;
  let svc: { s: RunningServer; dir: string; data: string };
  beforeAll(async () => {
    tsa = await startTestTsa(makeTestPki('Test TSA'));
    svc = await serve({ url: tsa.url, certificates: tsa.pki.caCert, everyEntries: 3 });
  }, 60_000);
  afterAll(async () => {
    await svc?.s.close();
    await tsa?.close();
  });

  it('stamps checkpoints every N entries, not every decision; the stored tokens verify with openssl ts -verify over the exact note bytes', async () => {
    await decideAndStamp(svc, 7, 'call');
    const cp = (await get(`${svc.s.url}/v1/checkpoint`)).json;
    expect(cp.timestamped).toMatchObject({ tsa: 'CN=Test TSA, O=vouch tests', genTime: expect.stringMatching(/^20\d\d-/) });
    // 7 decisions (plus the start-up policy entry, and at most 3 more the cadence asked for): a few stamps, far fewer than the decisions.
    expect(tsa.requests).toBeGreaterThanOrEqual(2);
    expect(tsa.requests).toBeLessThanOrEqual(4);
    const store = openTimestampStore(join(svc.data, 'timestamps.db'), { readonly: true });
    try {
      const all = store.within(cp.origin, 0, 1e9);
      expect(all.length).toBe(tsa.requests);
      for (const r of all) {
        expect(opensslVerifyToken(tsa.pki, r.token, utf8.encode(r.note)).ok).toBe(true);
        expect(opensslVerifyToken(tsa.pki, r.token, utf8.encode(r.note.replace(/\n(\d+)\n/, (_m, n) => `\n${Number(n) + 1}\n`))).ok).toBe(false);
      }
      for (let i = 1; i < all.length; i++) expect(all[i].size - all[i - 1].size).toBeGreaterThanOrEqual(3);
    } finally {
      store.close();
    }
  }, 60_000);

  it('a receipt carries the stamp; vouch verify --tsa-cert says time-stamped by the TSA at genTime (text and JSON); without a pinned certificate: not checked, VALID', async () => {
    const { json } = await get(`${svc.s.url}/v1/entries/1`);
    expect(json.receipt.timestamp).toMatchObject({ checkpoint: expect.any(String), token: expect.any(String) });
    const file = join(svc.dir, 'receipt.json');
    writeFileSync(file, JSON.stringify(json.receipt));
    const keys = await runVouch('keys', 'export', '--data', svc.data);
    const keyFile = join(svc.dir, 'keys.vkeys');
    writeFileSync(keyFile, keys.out);
    const text = await runVouch('verify', file, '--key', keyFile, '--tsa-cert', tsa.pki.caCert);
    expect(text.code, text.out).toBe(0);
    expect(text.out).toMatch(/✓ timestamp\s+time-stamped by CN=Test TSA, O=vouch tests at 20\d\d-.*: entry 1 existed by then/);
    expect(text.out).toMatch(/^VALID \(.*time-stamped by CN=Test TSA, O=vouch tests at 20/m);
    const js = await runVouch('verify', file, '--key', keyFile, '--tsa-cert', tsa.pki.tsaCert, '--json');
    expect(js.code).toBe(0);
    expect(js.json.timestamped).toMatchObject({ status: 'verified', tsa: 'CN=Test TSA, O=vouch tests', genTime: expect.any(String) });
    expect(js.json.checks.find((c: { name: string }) => c.name === 'timestamp')).toMatchObject({ ok: true, status: 'verified' });
    // vouch receipt (read-only beside the running service) carries the same stamp.
    const cli = await runVouch('receipt', '1', '--data', svc.data);
    expect(cli.code, cli.out).toBe(0);
    expect(cli.json.timestamp).toEqual(json.receipt.timestamp);
    const none = await runVouch('verify', file, '--key', keyFile, '--json');
    expect(none.code).toBe(0);
    expect(none.json.timestamped).toMatchObject({ status: 'not checked' });
    expect(none.json.verdict).toMatch(/TSA time-stamp: not checked/);
  }, 60_000);

  it('INVALID with the reason: another TSA pinned, a token over other bytes, an altered token', async () => {
    const { json } = await get(`${svc.s.url}/v1/entries/1`);
    const keyFile = join(svc.dir, 'keys.vkeys');
    const other = makeTestPki('Other TSA');
    const check = async (receipt: unknown, cert = tsa.pki.caCert) => {
      const f = join(svc.dir, `r-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(f, JSON.stringify(receipt));
      return runVouch('verify', f, '--key', keyFile, '--tsa-cert', cert, '--json');
    };
    const wrongCert = await check(json.receipt, other.caCert);
    expect(wrongCert.code).toBe(1);
    expect(wrongCert.json.checks.find((c: { name: string }) => c.name === 'timestamp').detail).toMatch(/pinned TSA certificate/);
    // The token of another stamp (another checkpoint's bytes) moved onto this one.
    // An entry the first stamp does not hold (its index is that stamp's size): a later stamp covers it.
    const firstSize = Number(json.receipt.timestamp.checkpoint.split('\n')[1]);
    const later = (await get(`${svc.s.url}/v1/entries/${firstSize}`)).json.receipt.timestamp;
    expect(later.checkpoint).not.toBe(json.receipt.timestamp.checkpoint);
    const swapped = await check({ ...json.receipt, timestamp: { ...json.receipt.timestamp, token: later.token } });
    expect(swapped.code).toBe(1);
    expect(swapped.json.checks.find((c: { name: string }) => c.name === 'timestamp').detail).toMatch(/other bytes/);
    const tok = fromBase64(json.receipt.timestamp.token);
    tok[tok.length - 10] ^= 0x40;
    const altered = await check({ ...json.receipt, timestamp: { ...json.receipt.timestamp, token: Buffer.from(tok).toString('base64') } });
    expect(altered.code).toBe(1);
    expect(altered.json.verdict).toMatch(/^INVALID/);
  }, 60_000);

  it('a bundle carries the stamps of its range (timestamps.json): vouch verify BUNDLE --tsa-cert says time-stamped by the TSA; without it not checked; from vouch export and GET /v1/export', async () => {
    const keyFile = join(svc.dir, 'keys.vkeys');
    writeFileSync(keyFile, (await runVouch('keys', 'export', '--data', svc.data)).out);
    // Stand-alone (the first test may not have run): decisions until a stamp covers the last of them.
    await decideAndStamp(svc, 7, 'bundle');
    const stampedSize = (await get(`${svc.s.url}/v1/checkpoint`)).json.timestamped.size;
    const out = join(svc.dir, 'bundle');
    const ex = await runVouch('export', '--data', svc.data, '-o', out);
    expect(ex.code, ex.out).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    const stamps = JSON.parse(readFileSync(join(out, 'timestamps.json'), 'utf8'));
    expect(stamps.length).toBeGreaterThanOrEqual(2);
    // Every stamp is of a tree the bundle's holds, the newest one waited for among them.
    const sizes = stamps.map((t: { checkpoint: string }) => Number(t.checkpoint.split('\n')[1]));
    expect(Math.max(...sizes)).toBeGreaterThanOrEqual(stampedSize);
    for (const n of sizes) expect(n).toBeLessThanOrEqual(manifest.checkpoint.size);
    // Each token is over the exact note bytes (independent of vouch: openssl ts -verify).
    for (const t of stamps) expect(opensslVerifyToken(tsa.pki, fromBase64(t.token), utf8.encode(t.checkpoint)).ok).toBe(true);
    const text = await runVouch('verify', out, '--key', keyFile, '--tsa-cert', tsa.pki.caCert);
    expect(text.code, text.out).toBe(0);
    expect(text.out).toMatch(/time-stamped by CN=Test TSA, O=vouch tests at 20\d\d-/);
    // Replay is checked above and in test/audit; the stamps do not need it again.
    const js = await runVouch('verify', out, '--key', keyFile, '--tsa-cert', tsa.pki.caCert, '--no-replay', '--json');
    expect(js.code).toBe(0);
    expect(js.json.timestamped).toMatchObject({ status: 'verified', tsa: 'CN=Test TSA, O=vouch tests', genTime: expect.any(String) });
    expect(js.json.timestamps).toHaveLength(stamps.length);
    // The earliest stamp is the one reported.
    expect(js.json.timestamped.genTime).toBe([...js.json.timestamps.map((c: { genTime: string }) => c.genTime)].sort()[0]);
    // No --tsa-cert: the stamps are "not checked", never a finding.
    const none = await runVouch('verify', out, '--key', keyFile, '--no-replay', '--json');
    expect(none.code, JSON.stringify(none.json?.findings)).toBe(0);
    expect(none.json.timestamped).toMatchObject({ status: 'not checked', detail: expect.stringMatching(/not checked \(give --tsa-cert FILE/) });
    expect((await runVouch('verify', out, '--key', keyFile, '--no-replay')).out).toMatch(/^ {5}TSA time-stamp: \d+ TSA time-stamp\(s\) not checked \(give --tsa-cert FILE/m);
    // timestamps.json removed (stripped in transit, or a service without a TSA): not checked, and said so; never INVALID.
    rmSync(join(out, 'timestamps.json'));
    const stripped = await runVouch('verify', out, '--key', keyFile, '--tsa-cert', tsa.pki.caCert, '--no-replay');
    expect(stripped.code, stripped.out).toBe(0);
    expect(stripped.out).toMatch(/^ {5}TSA time-stamp: not checked \(no stamps in bundle\)$/m);
    const strippedJs = await runVouch('verify', out, '--key', keyFile, '--tsa-cert', tsa.pki.caCert, '--no-replay', '--json');
    expect(strippedJs.json).toMatchObject({ ok: true, findings: [], timestamped: { status: 'not checked', detail: 'not checked (no stamps in bundle)' } });
    // The same from the HTTP export.
    const res = await fetch(`${svc.s.url}/v1/export`);
    expect(res.status).toBe(200);
    const tgz = join(svc.dir, 'http-bundle.tar.gz');
    writeFileSync(tgz, Buffer.from(await res.arrayBuffer()));
    const http = await runVouch('verify', tgz, '--key', keyFile, '--tsa-cert', tsa.pki.caCert, '--no-replay', '--json');
    expect(http.code, JSON.stringify(http.json?.findings)).toBe(0);
    expect(http.json.timestamped).toMatchObject({ status: 'verified' });
    expect(http.json.timestamps.length).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('a bundle whose timestamps.json was tampered with is INVALID with the reason: an altered token or note, a stamp moved onto another note, a proof that does not tie it to the tree, a stamp of another bundle or another log', async () => {
    const keyFile = join(svc.dir, 'keys.vkeys');
    writeFileSync(keyFile, (await runVouch('keys', 'export', '--data', svc.data)).out);
    await decideAndStamp(svc, 4, 'tamper');
    const out = join(svc.dir, 'bundle-t');
    expect((await runVouch('export', '--data', svc.data, '-o', out)).code).toBe(0);
    const file = join(out, 'timestamps.json');
    const good = readFileSync(file, 'utf8');
    const verify = (...more: string[]) => runVouch('verify', out, '--key', keyFile, '--no-replay', '--json', ...more);
    const check = async (stamps: unknown[]) => {
      writeFileSync(file, JSON.stringify(stamps));
      const r = await verify('--tsa-cert', tsa.pki.caCert);
      expect(r.code).toBe(1);
      return r.json.findings.filter((f: { check: string }) => f.check === 'timestamp').map((f: { message: string }) => f.message).join('\n');
    };
    const stamps = JSON.parse(good);
    const tok = fromBase64(stamps[0].token);
    tok[tok.length - 10] ^= 0x40;
    expect(await check([{ ...stamps[0], token: Buffer.from(tok).toString('base64') }])).toMatch(/TSA token/);
    expect(await check([{ ...stamps[0], token: stamps[1].token }])).toMatch(/other bytes/);
    expect(await check([{ ...stamps[0], proof: ['00'.repeat(32), ...stamps[0].proof] }])).toMatch(/not a prefix/);
    // One byte of the stamped note flipped (its root line): its signatures no longer hold.
    const note: string = stamps[0].checkpoint;
    const at = note.indexOf('\n', note.indexOf('\n') + 1) + 3;
    const flipped = note.slice(0, at) + (note[at] === 'A' ? 'B' : 'A') + note.slice(at + 1);
    expect(await check([{ ...stamps[0], checkpoint: flipped }])).toMatch(/does not verify with the log's keys/);
    // A stamp moved from another bundle of this log (a larger tree: its proof ties it to that tree, not this one).
    for (let i = 0; i < 3; i++) expect((await decide(svc.s.url, `later ${i}`)).status).toBe(200);
    const size = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).checkpoint.size;
    await until(async () => (await get(`${svc.s.url}/v1/checkpoint`)).json.size > size);
    const laterOut = join(svc.dir, 'bundle-later');
    expect((await runVouch('export', '--data', svc.data, '-o', laterOut)).code).toBe(0);
    const moved = JSON.parse(readFileSync(join(laterOut, 'timestamps.json'), 'utf8'))[0];
    expect(moved.checkpoint).toBe(stamps[0].checkpoint);
    expect(moved.proof).not.toEqual(stamps[0].proof);
    expect(await check([moved])).toMatch(/not a prefix/);
    // Another log's stamp (another service, its own keys, the same TSA, the same origin).
    const other = await serve({ url: tsa.url, certificates: tsa.pki.caCert, everyEntries: 1 });
    let foreign;
    try {
      expect((await decide(other.s.url, 'elsewhere')).status).toBe(200);
      await until(async () => (await get(`${other.s.url}/v1/checkpoint`)).json.timestamped?.size >= 1);
      foreign = (await get(`${other.s.url}/v1/entries/0`)).json.receipt.timestamp;
      expect(await check([{ ...foreign, proof: stamps[0].proof }])).toMatch(/does not verify with the log's keys/);
    } finally {
      await other.s.close();
    }
    // Without a pinned certificate a tampered token is still "not checked", never INVALID; the note and proof still are.
    writeFileSync(file, JSON.stringify([{ ...stamps[0], token: Buffer.from(tok).toString('base64') }]));
    expect((await verify()).code).toBe(0);
    writeFileSync(file, JSON.stringify([{ ...stamps[0], proof: ['00'.repeat(32), ...stamps[0].proof] }]));
    expect((await verify()).code).toBe(1);
    writeFileSync(file, good);
    expect((await verify('--tsa-cert', tsa.pki.caCert)).code).toBe(0);
    // The export itself never writes a stamp the verifier rejects: one of another log under the same
    // origin (a data directory made again) kept in timestamps.db is left out, with a manifest note.
    const mine = (await get(`${svc.s.url}/v1/checkpoint`)).json.origin;
    const foreignRec = storedStamps(other.data, mine)[0];
    expect(foreignRec).toBeDefined();
    const db = openTimestampStore(join(svc.data, 'timestamps.db'));
    try {
      db.add(foreignRec);
    } finally {
      db.close();
    }
    const mixed = join(svc.dir, 'bundle-mixed');
    expect((await runVouch('export', '--data', svc.data, '-o', mixed)).code).toBe(0);
    const kept = JSON.parse(readFileSync(join(mixed, 'timestamps.json'), 'utf8'));
    expect(kept.map((t: { checkpoint: string }) => t.checkpoint)).not.toContain(foreignRec.note);
    expect(JSON.parse(readFileSync(join(mixed, 'manifest.json'), 'utf8')).notes.join('\n')).toMatch(new RegExp(`a TSA time-stamp of checkpoint size ${foreignRec.size} is left out`));
    const res = await fetch(`${svc.s.url}/v1/export`);
    const tgz = join(svc.dir, 'http-mixed.tar.gz');
    writeFileSync(tgz, Buffer.from(await res.arrayBuffer()));
    for (const b of [mixed, tgz]) {
      const r = await runVouch('verify', b, '--key', keyFile, '--tsa-cert', tsa.pki.caCert, '--no-replay', '--json');
      expect(r.code, JSON.stringify(r.json?.findings)).toBe(0);
      expect(r.json.timestamped).toMatchObject({ status: 'verified' });
    }
  }, 120_000);
});

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('a TSA that is down never delays or fails a decision, and is counted', () => {
  const cases: [string, () => Promise<{ url: string; ca: string; close(): Promise<void> }>][] = [
    ['connection refused', async () => ({ url: `http://127.0.0.1:${await closedPort()}/tsa`, ca: makeTestPki().caCert, close: async () => undefined })],
    ['HTTP 500', async () => { const t = await startTestTsa(undefined, '500'); return { url: t.url, ca: t.pki.caCert, close: () => t.close() }; }],
    ['garbage', async () => { const t = await startTestTsa(undefined, 'garbage'); return { url: t.url, ca: t.pki.caCert, close: () => t.close() }; }],
    ['no answer (timeout)', async () => { const t = await startTestTsa(undefined, 'hang'); return { url: t.url, ca: t.pki.caCert, close: () => t.close() }; }],
    ['a valid token from a TSA other than the pinned one', async () => { const t = await startTestTsa(); return { url: t.url, ca: makeTestPki('Pinned TSA').caCert, close: () => t.close() }; }],
  ];
  for (const [name, make] of cases) {
    it(name, async () => {
      const down = await make();
      // A TSA request takes up to 5 s here: a decision that waited on one would show it.
      const { s } = await serve({ url: down.url, certificates: down.ca, everyEntries: 1, timeoutMs: 5000 });
      try {
        const times: number[] = [];
        for (let i = 0; i < 10; i++) {
          const t0 = performance.now();
          const r = await decide(s.url, `call ${i}`);
          times.push(performance.now() - t0);
          expect(r.status).toBe(200);
          expect(r.json.effect).toBe('allow');
        }
        // Half the TSA timeout, with room for a loaded 2-core machine: no decision waited on a TSA request.
        expect(Math.max(...times)).toBeLessThan(2500);
        let metrics = '';
        await until(async () => /vouch_tsa_failures_total\{tenant="default"\} [1-9]/.test((metrics = await (await fetch(`${s.url}/metrics`)).text())));
        expect(metrics).toMatch(/vouch_tsa_stamped_size\{tenant="default"\} 0/);
        expect(metrics).not.toMatch(/^vouch_tsa_last_success_age_seconds/m);
        expect((await get(`${s.url}/v1/checkpoint`)).json.timestamped).toBeNull();
      } finally {
        await s.close();
        await down.close();
      }
    }, 60_000);
  }

  it('a TSA that comes back is used again: the stamp is late, never lost', async () => {
    const t = await startTestTsa(undefined, '500');
    const { s } = await serve({ url: t.url, certificates: t.pki.caCert, everyEntries: 1 });
    try {
      for (let i = 0; i < 3; i++) expect((await decide(s.url, `call ${i}`)).status).toBe(200);
      await until(async () => /vouch_tsa_failures_total\{tenant="default"\} [1-9]/.test(await (await fetch(`${s.url}/metrics`)).text()));
      t.mode = 'ok';
      await until(async () => (await get(`${s.url}/v1/checkpoint`)).json.timestamped?.size >= 4);
      expect(await (await fetch(`${s.url}/metrics`)).text()).toMatch(/vouch_tsa_last_success_age_seconds\{tenant="default"\} \d/);
    } finally {
      await s.close();
      await t.close();
    }
  }, 60_000);
});
