// Intent vs execution through a real server: POST /v1/executions, the /mcp response link and
// drift guard, and receipts that verify in a separate process with no access to the service.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestJson, fromBase64, toBase64, utf8 } from '../../src/canonical/index.js';
import { createMldsaSigner } from '../../src/crypto/index.js';
import { noteSignerFor, signCheckpoint } from '../../src/log/index.js';
import { parseTrust, verifiersFor, verifyReceipt } from '../../src/receipt/index.js';
import { loadKeys } from '../../src/store/node.js';
import { get, post, testIssuer, testServer, writeConfig } from './_server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let s: Awaited<ReturnType<typeof testServer>>;
let acme: Record<string, string>;
let globex: Record<string, string>;
let auditOnly: Record<string, string>;
let jwks: unknown;

const call = { name: 'send_email', arguments: { to: 'alice@example.test', subject: 'report', body: 'see attached', requestId: 'r-1' } };
const entryOf = (receipt: { entry: string }) => JSON.parse(utf8.decode(fromBase64(receipt.entry)));
const authorize = (h: Record<string, string>, payload: unknown = call, context?: unknown) => post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload, context }, h);
const execution = (h: Record<string, string>, body: unknown) => post(`${s.url}/v1/executions`, body, h);
const rpc = (h: Record<string, string>, params: unknown) => post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params }, h);
const size = async (h: Record<string, string>) => (await get(`${s.url}/v1/checkpoint`, h)).json.size as number;
const verifies = (receipt: { checkpoint: string }) => {
  const trust = parseTrust(JSON.stringify(jwks));
  return verifyReceipt(receipt, { verifiers: verifiersFor(trust, receipt.checkpoint) }).ok;
};

beforeAll(async () => {
  const issuer = await testIssuer();
  const dir = mkdtempSync(join(tmpdir(), 'vouch-exec-http-'));
  // No authorization interceptor: this file is about linking and drift, so tools/call passes as configured uncovered traffic.
  const config = writeConfig(dir, { version: 1, uncovered: [{ events: ['tools/call'], phase: 'both' }], interceptors: [{ name: 'pii', use: 'pii-redactor' }], drift: { failOnCritical: true, rules: [{ pattern: '/arguments/subject', severity: 'benign' }] } });
  s = await testServer({ auth: issuer.auth, config });
  const bearer = async (claims: Record<string, unknown>) => ({ authorization: `Bearer ${await issuer.token(claims)}` });
  acme = await bearer({ sub: 'app-1', tenant: 'acme', roles: ['enforce', 'audit'] });
  globex = await bearer({ sub: 'app-2', tenant: 'globex', roles: ['enforce', 'audit'] });
  auditOnly = await bearer({ sub: 'auditor', tenant: 'acme', roles: ['audit'] });
  jwks = (await get(`${s.url}/.well-known/vouch/keys`)).json;
});
afterAll(async () => {
  await s?.close();
});

describe('POST /v1/executions', () => {
  it('links to the authorization: identical parameters, no drift; the receipt verifies', async () => {
    const a = await authorize(acme);
    expect(a.json.effect).toBe('allow');
    const r = await execution(acme, { authorization: a.json.seq, executed: a.json.finalPayload, resultDigest: digestJson({ ok: 1 }), context: { sessionId: 's', traceId: 't' } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ drift: { severity: 'none', count: 0 }, flags: [] });
    expect(entryOf(r.json.receipt)).toMatchObject({ type: 'execution', seq: r.json.seq, tenant: 'acme', principal: 'app-1', authorization: a.json.seq, result: { digest: digestJson({ ok: 1 }) }, session: 's', trace: 't' });
    expect(verifies(r.json.receipt)).toBe(true);
  });

  it('records drift classified by the config rules and the defaults', async () => {
    const a = await authorize(acme);
    const executed = { ...call, arguments: { ...call.arguments, to: 'mallory@evil.test', subject: 'other' } };
    const r = await execution(acme, { authorization: a.json.seq, executed });
    expect(r.json.flags).toEqual(['drift-critical']);
    // Each path with what was authorized and what ran; where the PII redactor acted (the
    // recipient) both sides are digests, so the answer never carries the address.
    expect(r.json.drift.items).toEqual([
      { path: '/arguments/subject', op: 'replace', severity: 'benign', authorized: call.arguments.subject, executed: 'other' },
      { path: '/arguments/to', op: 'replace', severity: 'critical', redacted: true, authorizedDigest: expect.stringMatching(/^sha256:/), executedDigest: digestJson('mallory@evil.test') },
    ]);
  });

  it("an unknown seq, a deny, or another tenant's seq: recorded, flagged unauthorized", async () => {
    // A number JCS cannot represent: a deny entry (sent as raw text: JSON.stringify would write null).
    const denied = await post(`${s.url}/v1/authorize`, '{"event":"tools/call","phase":"request","payload":{"name":"echo","arguments":{"n":1e400}}}', acme);
    expect(denied.json.effect).toBe('deny');
    for (let i = 0; i < 4; i++) await authorize(acme);
    const acmeSeq = (await authorize(acme)).json.seq;
    expect(acmeSeq).toBeGreaterThan(await size(globex)); // globex has no entry with acme's seq
    for (const [h, seq] of [[acme, 99_999], [acme, denied.json.seq], [globex, acmeSeq]] as const) {
      const before = await size(h);
      const r = await execution(h, { authorization: seq, executed: call });
      expect(r.status).toBe(200);
      expect(r.json.flags).toEqual(['unauthorized']);
      expect(entryOf(r.json.receipt)).toMatchObject({ authorization: null, claimed: { authorization: seq } });
      expect(await size(h)).toBe(before + 1);
    }
  });

  it('needs the enforce role; bad bodies get coded errors and write nothing', async () => {
    const before = await size(acme);
    expect((await execution(auditOnly, { authorization: 1, executed: {} })).status).toBe(403);
    const bad = await execution(acme, { authorization: -1, resultDigest: 'md5:x', extra: true });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('ERR_INPUT');
    expect(await size(acme)).toBe(before);
  });
});

describe('/mcp: response-phase link and drift guard', () => {
  const request = (trace: string) => rpc(acme, { event: 'tools/call', phase: 'request', payload: call, context: { sessionId: 'mcp-s', traceId: trace } });
  const response = (trace: string, meta?: Record<string, unknown>) =>
    rpc(acme, { event: 'tools/call', phase: 'response', payload: { content: [{ type: 'text', text: 'sent' }] }, context: { sessionId: 'mcp-s', traceId: trace }, ...(meta && { _meta: meta }) });

  it('links the response to the request named in _meta', async () => {
    const req = await request('t1');
    const seq = req.json.result._meta['io.vouch/seq'];
    const res = await response('t1', { 'io.vouch/authorization': seq });
    expect(res.json.result.status).toBe('success');
    expect(entryOf(res.json.result._meta['io.vouch/receipt']).authorization).toBe(seq);
  });

  it('falls back to the latest allowed request of the same session and trace', async () => {
    await request('t2');
    const latest = (await request('t2')).json.result._meta['io.vouch/seq'];
    const res = await response('t2');
    const e = entryOf(res.json.result._meta['io.vouch/receipt']);
    expect(e.authorization).toBe(latest);
    expect(e.state['(vouch)'].execution.via).toBe('session-trace');
  });

  it('failOnCritical: executed parameters that drift critically deny the response (the result does not reach the model)', async () => {
    const req = await request('t3');
    const seq = req.json.result._meta['io.vouch/seq'];
    const intent = req.json.result.finalPayload; // as authorized: the e-mail address redacted
    expect(intent.arguments.to).toBe('[EMAIL_REDACTED]');
    const executed = { ...intent, arguments: { ...intent.arguments, to: 'mallory@evil.test' } };
    const res = await response('t3', { 'io.vouch/authorization': seq, 'io.vouch/executed': executed });
    expect(res.json.result.status).toBe('error');
    expect(res.json.result.abortedAt).toMatchObject({ interceptor: '(vouch)', reason: expect.stringContaining('/arguments/to') });
    const receipt = res.json.result._meta['io.vouch/receipt'];
    const e = entryOf(receipt);
    expect(e.decision.effect).toBe('deny');
    expect(e.state['(vouch)'].execution).toMatchObject({ authorization: seq, executed: digestJson(executed), drift: { severity: 'critical' }, deny: expect.any(String) });
    expect(verifies(receipt)).toBe(true);
    // Benign drift passes.
    const ok = await response('t3', { 'io.vouch/authorization': seq, 'io.vouch/executed': { ...intent, arguments: { ...intent.arguments, requestId: 'r-2' } } });
    expect(ok.json.result.status).toBe('success');
  });
});

describe('receipts verify offline, in another process, with the service stopped', () => {
  const vouch = (cwd: string, ...argv: string[]): Promise<{ code: number | null; out: string; err: string }> =>
    new Promise((resolve) => {
      execFile(process.execPath, [join(ROOT, 'bin/vouch.js'), 'verify', ...argv], { cwd, encoding: 'utf8', timeout: 60_000 }, (e, out, err) => resolve({ code: e ? (typeof e.code === 'number' ? e.code : null) : 0, out, err }));
    });

  it('valid receipts exit 0; a changed byte, a wrong key, another tenant under --origin, a forged checkpoint exit 1', async () => {
    const first = (await authorize(acme)).json.receipt;
    const exec = (await execution(acme, { authorization: entryOf(first).seq, executed: call })).json.receipt;
    const other = (await authorize(globex)).json.receipt;
    for (let i = 0; i < 3; i++) await authorize(acme);
    const firstSize = Number(first.checkpoint.split('\n')[1]);
    const newer = (await get(`${s.url}/v1/proofs/consistency?from=${firstSize}`, acme)).json;
    expect(newer.to).toBeGreaterThan(firstSize);
    // The attacker's view: the server's own key signs a second root for a size already signed.
    const data = join(s.dir, 'data');
    const { mldsaSeed } = loadKeys(data);
    const forged = await signCheckpoint({ origin: entryOf(first).log, size: firstSize, root: new Uint8Array(32).fill(3), extensions: [] }, [noteSignerFor('vouch.local', createMldsaSigner(mldsaSeed))]);
    await s.close(); // from here on, nothing but files

    const cwd = mkdtempSync(join(tmpdir(), 'vouch-offline-'));
    const put = (name: string, v: unknown) => writeFileSync(join(cwd, name), typeof v === 'string' ? v : JSON.stringify(v));
    put('receipt.json', first);
    put('execution.json', exec);
    put('globex.json', other);
    put('jwks.json', jwks);
    put('newer.json', newer);
    put('forged.note', forged);
    put('wrong.json', { keys: [] });
    const bytes = fromBase64(first.entry);
    bytes[bytes.length >> 1] ^= 1;
    put('entry-byte.json', { ...first, entry: toBase64(bytes) });
    put('proof-byte.json', { ...first, proof: first.proof.length ? [first.proof[0].replace(/^./, (c: string) => (c === 'a' ? 'b' : 'a')), ...first.proof.slice(1)] : ['00'.repeat(32)] });
    put('checkpoint-byte.json', { ...first, checkpoint: first.checkpoint.replace(/\n(\d+)\n/, (_: string, n: string) => `\n${Number(n) + 1}\n`) });
    const sigAt = first.checkpoint.indexOf('\n\n') + 100;
    put('signature-byte.json', { ...first, checkpoint: first.checkpoint.slice(0, sigAt) + (first.checkpoint[sigAt] === 'A' ? 'B' : 'A') + first.checkpoint.slice(sigAt + 1) });

    const origin = entryOf(first).log;
    const runs = await Promise.all([
      vouch(cwd, 'receipt.json', '--key', 'jwks.json'),
      vouch(cwd, 'execution.json', '--key', 'jwks.json', '--origin', origin),
      vouch(cwd, 'receipt.json', '--key', 'jwks.json', '--checkpoint', 'newer.json'),
      vouch(cwd, 'entry-byte.json', '--key', 'jwks.json'),
      vouch(cwd, 'proof-byte.json', '--key', 'jwks.json'),
      vouch(cwd, 'checkpoint-byte.json', '--key', 'jwks.json'),
      vouch(cwd, 'signature-byte.json', '--key', 'jwks.json'),
      vouch(cwd, 'receipt.json', '--key', 'wrong.json'),
      vouch(cwd, 'globex.json', '--key', 'jwks.json', '--origin', origin),
      vouch(cwd, 'receipt.json', '--key', 'jwks.json', '--checkpoint', 'forged.note'),
    ]);
    // wrong.json is an empty JWKS: refused as a key file that trusts nothing (ERR_KEY_FORMAT, exit 3).
    expect(runs.map((r) => r.code), runs[7].out + runs[7].err).toEqual([0, 0, 0, 1, 1, 1, 1, 3, 1, 1]);
    expect(runs[0].out).toMatch(/VALID/);
    expect(runs[2].out).toMatch(/\u2713 consistency/);
    expect(runs[8].out).toMatch(/\u2717 origin .*expected log vouch\.local\/acme, receipt is from vouch\.local\/globex/);
    expect(runs[9].out).toContain(first.checkpoint.trimEnd());
    expect(runs[9].out).toContain(forged.trimEnd());
  }, 120_000);
});
