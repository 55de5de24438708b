// Co-signing required (`vouch serve --require-caller-signature`): the attacker is a caller that
// simply leaves the signature out. Unsigned requests are denied and the deny is recorded (not
// just decided unsigned); signed ones by a configured key pass; without caller keys the mode
// refuses to start, since it would deny everything.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalBytes, fromBase64, toBase64, utf8 } from '../../src/canonical/index.js';
import { createEd25519Signer, toJwks } from '../../src/crypto/index.js';
import { formatCallerSignatureHeader, type CallerSignatureClaim } from '../../src/receipt/index.js';
import { get, post, testServer } from './_server.js';

const BIN = fileURLToPath(new URL('../../bin/vouch.js', import.meta.url));
const ed = createEd25519Signer(new Uint8Array(32).fill(31));
const callerJwks = toJwks([{ alg: 'Ed25519', publicKey: ed.publicKey, kid: 'app-ed' }]);
const payload = { name: 'echo', arguments: { text: 'hello' } };
const sign = async (p: unknown): Promise<CallerSignatureClaim> => ({ alg: ed.alg, keyId: 'app-ed', signature: toBase64(await ed.sign(canonicalBytes(p))) });
const entryOf = (receipt: { entry: string }) => JSON.parse(utf8.decode(fromBase64(receipt.entry)));

describe('requireCallerSignature (in-process server)', () => {
  let s: Awaited<ReturnType<typeof testServer>>;
  beforeAll(async () => {
    s = await testServer({ callers: { default: callerJwks }, requireCallerSignature: true });
  });
  afterAll(() => s?.close());
  const size = async () => (await get(`${s.url}/v1/checkpoint`)).json.size as number;
  const authorize = (p: unknown, header?: string) => post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: p }, header === undefined ? {} : { 'x-vouch-caller-signature': header });

  it('REST: an unsigned request is denied, and the deny is a recorded entry naming why', async () => {
    const before = await size();
    const r = await authorize(payload);
    expect(r.json.effect).toBe('deny');
    const e = entryOf(r.json.receipt);
    expect(e.decision.effect).toBe('deny');
    expect(e.state['(vouch)'].callerSignature).toMatchObject({ ok: false, required: true, deny: expect.stringMatching(/caller signature is required/) });
    expect(await size()).toBe(before + 1);
  });

  it('REST: the same request signed by a configured key is allowed, the co-signature in the receipt', async () => {
    const r = await authorize(payload, formatCallerSignatureHeader(await sign(payload)));
    expect(r.json.effect).toBe('allow');
    expect(r.json.receipt.callerSignature.keyId).toBe('app-ed');
  });

  it('/mcp executeChain: unsigned is an error outcome by (vouch), recorded; signed succeeds', async () => {
    const call = (claim?: CallerSignatureClaim) =>
      post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params: { event: 'tools/call', phase: 'request', payload, ...(claim && { _meta: { 'io.vouch/caller-signature': claim } }) } });
    const unsigned = await call();
    expect(unsigned.json.result.status).toBe('error');
    expect(unsigned.json.result.abortedAt).toMatchObject({ interceptor: '(vouch)', reason: expect.stringMatching(/caller signature is required/) });
    expect((await call(await sign(payload))).json.result.status).toBe('success');
  });
});

describe('without the mode, unsigned requests are still decided (the default is unchanged)', () => {
  it('allows an unsigned echo', async () => {
    const s = await testServer({ callers: { default: callerJwks } });
    try {
      const r = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload });
      expect(r.json.effect).toBe('allow');
    } finally {
      await s.close();
    }
  });
});

describe('vouch serve --require-caller-signature (child process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-cosign-req-'));
  const callers = join(dir, 'callers.json');
  writeFileSync(callers, JSON.stringify({ default: callerJwks }));

  it('refuses to start without caller keys (exit 3, ERR_CONFIG)', () => {
    const r = spawnSync(process.execPath, [BIN, 'serve', '--port', '0', '--data', join(dir, 'd1'), '--require-caller-signature'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/needs caller keys/);
  });

  it('denies an unsigned request and allows a signed one', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data', join(dir, 'd2'), '--callers', callers, '--require-caller-signature'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ready line: ${out}`)), 30_000);
        const on = (c: Buffer) => {
          out += c.toString('utf8');
          const m = /vouch ready on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m) clearTimeout(timer), resolve(m[1]);
        };
        child.stdout!.on('data', on);
        child.stderr!.on('data', on);
      });
      const body = { event: 'tools/call', phase: 'request', payload };
      expect((await post(`${url}/v1/authorize`, body)).json.effect).toBe('deny');
      expect((await post(`${url}/v1/authorize`, body, { 'x-vouch-caller-signature': formatCallerSignatureHeader(await sign(payload)) })).json.effect).toBe('allow');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }, 60_000);
});
