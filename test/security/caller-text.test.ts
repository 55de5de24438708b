// Issue 35 item 1. Attacker: a hostile caller who puts credentials where vouch writes free-form
// text outside the payload: a tool name, a resource URI (its authority names the server), the
// context's server, session and trace ids, argument keys an execution's drift names, and text an
// interceptor quotes back in its message. The payload itself is digested and kept erasable; these
// fields are signed into the log for ever and exported as telemetry. None of the credentials may
// appear in an entry's bytes, a receipt, a console row or an OpenTelemetry span or log record,
// with a chain that has no redactor at all.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64, utf8 } from '../../src/canonical/index.js';
import { replayLog } from '../../src/audit/index.js';
import { storeReplaySource } from '../../src/audit/node-bundle.js';
import { recordedLabel } from '../../src/interceptors/builtin/recorded-text.js';
import { serverOf } from '../../src/interceptors/server-of.js';
import { get, post, testServer, writeConfig } from '../http/_server.js';
import { AWS_KEY_ID, GITHUB_PAT, JWT } from '../interceptors/builtin/_secrets.js';

const PAT36 = `${GITHUB_PAT.slice(0, 4)}${'Zq9'.repeat(12)}`; // ghp_ and 36 characters
const PASSWORD = 'wJalrXUtnFEMIsecret';
const URI = `https://${AWS_KEY_ID}:${PASSWORD}@files.example.test/report.pdf`;
const NEEDLES = [PAT36, GITHUB_PAT, AWS_KEY_ID, PASSWORD, JWT, URI];

/** A minimal OTLP/HTTP collector (JSON encoding): every body it was sent, as text. */
async function collector() {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(`${req.url} ${Buffer.concat(chunks).toString('utf8')}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { bodies, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const leaks = (text: string) => NEEDLES.filter((n) => text.includes(n));
const entryOf = (receipt: { entry: string }) => JSON.parse(utf8.decode(fromBase64(receipt.entry)));

let s: Awaited<ReturnType<typeof testServer>>;
let col: Awaited<ReturnType<typeof collector>>;
const receipts: unknown[] = [];

beforeAll(async () => {
  col = await collector();
  const dir = mkdtempSync(join(tmpdir(), 'vouch-caller-text-'));
  // No redactor anywhere: everything the caller sends passes through the chain as it is. The
  // schema guard quotes the unknown tool's name back in its message (and the deny's reason).
  const config = writeConfig(dir, { version: 1, uncovered: [{ events: ['*'], phase: 'both' }], interceptors: [{ name: 'schemas', use: 'schema-guard', config: { unknownTool: 'error' } }] });
  s = await testServer({ config, otlp: col.url });
}, 60_000);
afterAll(async () => {
  await s?.close();
  await col?.close();
});

describe('credentials in free-form caller text never reach a signed field or telemetry', () => {
  it('a tool name, a resource URI and the context ids are recorded redacted (REST and /mcp)', async () => {
    const ctx = { sessionId: `session ${AWS_KEY_ID}`, traceId: JWT };
    const calls = [
      { event: 'tools/call', phase: 'request', payload: { name: PAT36, arguments: {} } },
      { event: 'tools/call', phase: 'request', payload: { name: `get-${PAT36}`, arguments: {} }, context: ctx },
      { event: 'resources/read', phase: 'request', payload: { uri: URI } },
      { event: 'resources/subscribe', phase: 'request', payload: { uri: `postgres://${GITHUB_PAT}.db.example.test/orders` } },
      { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: {} }, context: { ...ctx, server: `mcp ${GITHUB_PAT}` } },
      // Invisible characters around or inside a credential hide it from neither reading.
      { event: 'prompts/get', phase: 'request', payload: { name: `prompt\u200b${PAT36}` } },
      { event: 'prompts/get', phase: 'request', payload: { name: `prompt-gh\u2066p${PAT36.slice(3)}` } },
    ];
    for (const c of calls) {
      const r = await post(`${s.url}/v1/authorize`, c);
      expect(r.status).toBe(200);
      receipts.push(r.json.receipt);
      const m = await post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params: c });
      expect(m.status).toBe(200);
      receipts.push(m.json.result._meta['io.vouch/receipt']);
    }
    const entries = receipts.map((x) => entryOf(x as { entry: string }));
    // Still readable: the placeholder says what was there, the host stays.
    expect(entries[0]).toMatchObject({ target: '[SECRET_REDACTED:github_pat]', server: '[SECRET_REDACTED:github_pat]', decision: { effect: 'deny' } });
    expect(entries[0].decision.abortedAt.reason).toContain('[SECRET_REDACTED:github_pat]');
    expect(entries[4]).toMatchObject({ server: 'files.example.test', target: 'https://[SECRET_REDACTED:url_credentials]@files.example.test/report.pdf' });
    expect(entries[8]).toMatchObject({ server: 'mcp [SECRET_REDACTED:github_pat]', session: 'session [SECRET_REDACTED:aws_access_key]', trace: '[SECRET_REDACTED:jwt]' });
    expect(entries[10].target).toBe('prompt[SECRET_REDACTED:github_pat]'); // the zero-width space is gone too
    expect(entries[12].target).toBe('prompt-[SECRET_REDACTED:github_pat]');
    for (const x of receipts) expect(leaks(JSON.stringify(x))).toEqual([]);
  });

  it('a caller signature claiming a key id no key has: the id is recorded redacted', async () => {
    const r = await post(`${s.url}/v1/authorize`, { event: 'prompts/get', phase: 'request', payload: { name: 'summarize' }, _meta: { 'io.vouch/caller-signature': { alg: 'Ed25519', keyId: `key-${PAT36}`, signature: 'AAAA' } } });
    expect(r.status).toBe(200);
    expect(r.json.effect).toBe('deny'); // a signature no key verifies is a recorded deny
    const e = entryOf(r.json.receipt);
    expect(e.callerSignature.keyId).toBe('key-[SECRET_REDACTED:github_pat]');
    expect(leaks(JSON.stringify(r.json.receipt))).toEqual([]);
  });

  it('an execution report: session, trace and drifted argument keys are recorded redacted', async () => {
    const a = await post(`${s.url}/v1/authorize`, { event: 'prompts/get', phase: 'request', payload: { name: 'summarize', arguments: { a: '1' } }, context: { sessionId: 's1' } });
    expect(a.json.effect).toBe('allow');
    const x = await post(`${s.url}/v1/executions`, { authorization: a.json.seq, executed: { name: 'summarize', arguments: { a: '1', [AWS_KEY_ID]: '2' } }, context: { sessionId: `s1 ${GITHUB_PAT}`, traceId: JWT } });
    expect(x.status).toBe(200);
    const e = entryOf(x.json.receipt);
    expect(e.session).toBe('s1 [SECRET_REDACTED:github_pat]');
    expect(JSON.stringify(e.drift)).toContain('[SECRET_REDACTED:aws_access_key]');
    expect(leaks(JSON.stringify(x.json.receipt))).toEqual([]);
  });

  it('the whole log, the console rows and every span and log record the collector got are clean', async () => {
    const store = s.dataDir.log('default').store;
    const all = [...store.entries(0, store.size())].map((e) => utf8.decode(e.bytes));
    expect(all.length).toBeGreaterThan(14);
    expect(leaks(all.join('\n'))).toEqual([]);
    const rows = await get(`${s.url}/v1/entries?type=all&limit=500`);
    expect(rows.status).toBe(200);
    expect(rows.json.rows.length).toBe(all.length);
    expect(leaks(JSON.stringify(rows.json))).toEqual([]);
    // Wait until the newest entry is in both a span and a log record.
    const newest = new RegExp(`"vouch\\.seq","value":\\{"intValue":"?${all.length - 1}"?\\}`);
    const exported = (signal: string) => col.bodies.some((b) => b.startsWith(signal) && newest.test(b));
    const end = Date.now() + 15_000;
    while (!(exported('/v1/traces') && exported('/v1/logs'))) {
      if (Date.now() > end) throw new Error('telemetry never arrived');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(col.bodies.join('\n')).toContain('[SECRET_REDACTED:github_pat]');
    expect(leaks(col.bodies.join('\n'))).toEqual([]);
    // And every decision, redacted fields and all, replays to match.
    const report = await replayLog(storeReplaySource(store as never));
    expect(report.results.filter((r) => r.status !== 'match')).toEqual([]);
  });
});

describe('the labels themselves', () => {
  it('serverOf names no credential, whatever the payload says', () => {
    expect(serverOf({ event: 'tools/call', payload: { name: PAT36 } })).toBe('[SECRET_REDACTED:github_pat]');
    expect(serverOf({ event: 'resources/read', payload: { uri: `https://${GITHUB_PAT}.example.test/x` } })).toBe('[SECRET_REDACTED:github_pat].example.test');
    expect(serverOf({ event: 'resources/read', payload: { uri: URI } })).toBe('files.example.test');
    expect(serverOf({ event: 'tools/call', meta: { 'io.vouch/server': `x\u202e${AWS_KEY_ID}` }, payload: {} })).toBe('x[SECRET_REDACTED:aws_access_key]');
    // The operator's names are kept as they are.
    expect(serverOf({ event: 'tools/call', upstream: 'everything', payload: { name: PAT36 } })).toBe('everything');
    expect(serverOf({ event: 'tools/call', payload: { name: 'read_file' } })).toBe('filesystem');
  });

  it('recordedLabel is bounded and idempotent', () => {
    const long = `${'a'.repeat(300)}${PAT36}`;
    const once = recordedLabel(long);
    expect(Array.from(once).length).toBe(257); // 256 and the ellipsis
    expect(recordedLabel(once)).toBe(once);
    expect(recordedLabel(`${PAT36}${'b'.repeat(300)}`).startsWith('[SECRET_REDACTED:github_pat]')).toBe(true);
    // Format characters go; control characters stay (readers escape them), and hide no credential.
    expect(recordedLabel('a\u0000b\u200bc\u2066d')).toBe('a\u0000bcd');
    expect(recordedLabel(`x\u0000${PAT36}`)).toBe('x[SECRET_REDACTED:github_pat]');
    expect(recordedLabel(`g\u0007hp_${PAT36.slice(4)}`)).toBe('[SECRET_REDACTED:github_pat]');
  });
});
