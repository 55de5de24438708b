// Execution entries over a real log: linked to the allowing decision, drift recorded, and every
// execution nothing authorized recorded all the same, flagged unauthorized.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { canonicalBytes, digestJson, fromBase64, utf8 } from '../../src/canonical/index.js';
import { decide } from '../../src/decide/index.js';
import { parseDriftConfig, recordExecution } from '../../src/execution/index.js';
import { buildReceipt, verifyReceipt } from '../../src/receipt/index.js';
import { mutator } from '../interceptors/chain-kit.js';
import { EMPTY_POLICY, keys, T, testLog } from './_log.js';

const log = testLog();
afterAll(() => log.close());

const payload = { name: 'send_email', arguments: { to: 'alice@example.test', subject: 'hi', requestId: 'r1' } };
const ctx = { time: T, tenant: 'acme', principal: 'agent-1', sessionId: 's1', traceId: 't1' };

async function allow(p: unknown = payload, context: Record<string, unknown> = ctx) {
  return decide({ event: 'tools/call', phase: 'request', payload: p, context: context as never }, { policy: EMPTY_POLICY, log });
}

const report = (authorization: number | null, executed: unknown, more: Record<string, unknown> = {}) =>
  recordExecution({ log, authorization, executed, time: T, tenant: 'acme', principal: 'agent-1', caller: 'app', session: 's1', ...more });

const entryOf = (receipt: { entry: string }) => JSON.parse(utf8.decode(fromBase64(receipt.entry)));

describe('recordExecution', () => {
  it('links to the allowing decision; identical parameters: no drift, no flags; a receipt that verifies', async () => {
    const d = await allow();
    const out = await report(d.appended.seq, structuredClone(payload), { resultDigest: digestJson({ ok: true }) });
    expect(out.flags).toEqual([]);
    expect(out.drift).toMatchObject({ severity: 'none', count: 0, items: [] });
    const e = entryOf(out.receipt);
    expect(e).toMatchObject({
      type: 'execution', tenant: 'acme', principal: 'agent-1', caller: 'app', session: 's1', event: 'tools/call',
      authorization: d.appended.seq, intent: { digest: d.intentDigest }, executed: { digest: digestJson(payload) },
      result: { digest: digestJson({ ok: true }) }, drift: { severity: 'none', count: 0, items: [] }, flags: [],
    });
    expect(e.seq).toBe(out.seq);
    expect(verifyReceipt(out.receipt, { verifiers: keys.verifiers }).ok).toBe(true);
    // The executed parameters are kept by digest, like every payload.
    expect(await log.payload(digestJson(payload))).toEqual(canonicalBytes(payload));
  });

  it('records drift with paths and classes, and flags critical drift', async () => {
    const d = await allow();
    const executed = { name: 'send_email', arguments: { to: 'mallory@evil.test', subject: 'hi', requestId: 'r2', bcc: 'x@evil.test' } };
    const out = await report(d.appended.seq, executed);
    expect(out.flags).toEqual(['drift-critical']);
    // What changed, with both values (no redactor acted on this payload).
    expect(out.drift!.items).toEqual([
      { path: '/arguments/bcc', op: 'add', severity: 'critical', executed: 'x@evil.test' },
      { path: '/arguments/requestId', op: 'replace', severity: 'benign', authorized: 'r1', executed: 'r2' },
      { path: '/arguments/to', op: 'replace', severity: 'critical', authorized: 'alice@example.test', executed: 'mallory@evil.test' },
    ]);
    expect(out.why['drift-critical']).toBe('changed: /arguments/bcc, /arguments/to');
    // The signed entry keeps paths only: values stay in the erasable payloads.
    const e = entryOf(out.receipt);
    expect(e.drift).toEqual({ severity: 'critical', count: 3, items: out.drift!.items.map(({ path, op, severity }) => ({ path, op, severity })) });
    expect(JSON.stringify(e)).not.toContain('mallory');
    expect(e.why).toEqual(out.why);
  });

  it('uses the configured drift rules', async () => {
    const d = await allow();
    const rules = parseDriftConfig({ rules: [{ pattern: '/arguments/subject', severity: 'benign' }], default: 'critical' });
    const out = await report(d.appended.seq, { ...payload, arguments: { ...payload.arguments, subject: 'hello' } }, { drift: rules });
    expect(out.drift!.severity).toBe('benign');
    expect(out.flags).toEqual([]);
  });

  it('compares with the intent as authorized (after mutation), not the raw input', async () => {
    const redact = mutator('redact', (p) => {
      const o = p as { arguments: { text: string } };
      return { modified: true, payload: { ...o, arguments: { text: o.arguments.text.replace(/\d/g, '#') } } };
    });
    const policy = { ...EMPTY_POLICY, interceptors: [redact] };
    const d = await decide({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'call 555' } }, context: ctx }, { policy, log });
    expect(d.intentDigest).not.toBe(d.inputDigest);
    // Running the raw input is drift from what was authorized; running the intent is not.
    const raw = await report(d.appended.seq, { name: 'echo', arguments: { text: 'call 555' } });
    // A redactor acted at this path: the values are shown as digests only, never the raw digits.
    expect(raw.drift!.items).toEqual([
      { path: '/arguments/text', op: 'replace', severity: 'suspicious', redacted: true, authorizedDigest: digestJson('call ###'), executedDigest: digestJson('call 555') },
    ]);
    expect(JSON.stringify(raw.drift)).not.toContain('555');
    const asAuthorized = await report(d.appended.seq, { name: 'echo', arguments: { text: 'call ###' } });
    expect(asAuthorized.drift!.count).toBe(0);
    expect(entryOf(asAuthorized.receipt).intent).toEqual({ digest: d.intentDigest });
  });

  it("another principal's decision is no authorization: nothing of its intent is read back (no drift, no target)", async () => {
    const d = await allow();
    const out = await report(d.appended.seq, { name: 'other', arguments: {} }, { principal: 'agent-2' });
    expect(out.flags).toEqual(['unauthorized']);
    expect(out.why).toEqual({ unauthorized: `#${d.appended.seq} is no authorization: decision ${d.appended.seq} was made for another principal` });
    expect(out.drift).toBeNull();
    const entry = entryOf(out.receipt);
    expect(entry).toMatchObject({ authorization: null, intent: null, claimed: { authorization: d.appended.seq } });
    expect(entry.target).toBeUndefined();
  });

  it('flags a delegate acting for the principal, and a different session', async () => {
    const d = await allow();
    const out = await report(d.appended.seq, payload, { principal: 'agent-2', onBehalfOf: 'agent-1', session: 's9' });
    expect(out.flags).toEqual(['principal-mismatch', 'session-mismatch']);
    expect(out.why).toEqual({ 'principal-mismatch': 'authorized for agent-1, executed by agent-2', 'session-mismatch': 'authorized in session s1, executed in s9' });
  });

  it('names the target (from the authorization) and flags a second execution of one authorization as repeated', async () => {
    const d = await allow();
    const first = await report(d.appended.seq, payload);
    expect(first.flags).toEqual([]);
    expect(entryOf(first.receipt).target).toBe('send_email');
    const [second, third] = await Promise.all([report(d.appended.seq, payload), report(d.appended.seq, payload)]);
    for (const again of [second, third]) {
      expect(again.flags).toEqual(['repeated']);
      expect(again.why.repeated).toBe(`authorization #${d.appended.seq} was already executed (entry #${first.seq})`);
      expect(entryOf(again.receipt)).toMatchObject({ flags: ['repeated'], why: { repeated: again.why.repeated } });
    }
  });

  it('finds an earlier execution written before this process started (the index reads the log)', async () => {
    const d = await allow();
    const first = await report(d.appended.seq, payload);
    // A fresh copy of the module: no index in memory, as after a restart.
    vi.resetModules();
    const fresh = (await import('../../src/execution/index.js')).recordExecution;
    const again = await fresh({ log: { ...log }, authorization: d.appended.seq, executed: payload, time: T, tenant: 'acme', principal: 'agent-1' });
    expect(again.why.repeated).toBe(`authorization #${d.appended.seq} was already executed (entry #${first.seq})`);
  });

  it('another log under the same origin name does not inherit the index', async () => {
    const other = testLog();
    try {
      const d = await decide({ event: 'tools/call', phase: 'request', payload, context: ctx }, { policy: EMPTY_POLICY, log: other });
      // The same seq was executed in the first log; in this one it was not.
      const out = await recordExecution({ log: other, authorization: d.appended.seq, executed: payload, time: T, tenant: 'acme', principal: 'agent-1' });
      expect(out.flags).toEqual([]);
      expect((await recordExecution({ log: other, authorization: d.appended.seq, executed: payload, time: T, tenant: 'acme', principal: 'agent-1' })).flags).toEqual(['repeated']);
    } finally {
      await other.close();
    }
  });

  it('wait "durable" resolves at the commit while no checkpoint can be signed, still flags a repeat, and is covered once signing resumes', async () => {
    // The test keys, each signature held until released: whatever waits for a checkpoint waits.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const slow = testLog(keys.signers.map((s) => ({ ...s, sign: async (m: Uint8Array) => (await held, s.sign(m)) })));
    try {
      const d = await decide({ event: 'tools/call', phase: 'request', payload, context: ctx, wait: 'durable' }, { policy: EMPTY_POLICY, log: slow });
      const input = { log: slow, authorization: d.appended.seq, executed: payload, time: T, tenant: 'acme', principal: 'agent-1' };
      const out = await recordExecution(input, 'durable');
      if (!('durable' in out)) throw new Error('a durable record was asked for');
      expect(out.flags).toEqual([]);
      expect(out.body).toMatchObject({ type: 'execution', authorization: d.appended.seq });
      // Committed (in the store) and covered by no checkpoint: none has been signed.
      expect(slow.store.entry(out.seq)).toBeDefined();
      expect(slow.store.latestCheckpoint()).toBeUndefined();
      const again = await recordExecution(input, 'durable');
      expect(again.flags).toEqual(['repeated']);
      // A signed wait is still pending then; once signing resumes, both are covered.
      let signedDone = false;
      const signedOut = recordExecution(input).then((o) => ((signedDone = true), o));
      await new Promise((r) => setTimeout(r, 50));
      expect(signedDone).toBe(false);
      release();
      expect(verifyReceipt(buildReceipt(await out.durable.signed), { verifiers: keys.verifiers }).ok).toBe(true);
      expect(verifyReceipt((await signedOut).receipt, { verifiers: keys.verifiers }).ok).toBe(true);
    } finally {
      release();
      await slow.close();
    }
  });

  it('a decision whose payload holds {"type":"execution"} is no execution to the repeat index', async () => {
    const d = await allow();
    // Nested, the index's byte filter lets it through to the parse, which sees a decision entry.
    const lure = await allow({ name: 'x', arguments: { type: 'execution', authorization: d.appended.seq, note: '"type":"execution"' } });
    expect(lure.effect).toBe('allow');
    expect((await report(d.appended.seq, payload)).flags).toEqual([]);
  });

  it('keeps authorizing after the intent payload was erased, but cannot compute drift', async () => {
    const d = await allow({ name: 'erase-me', arguments: { n: 1 } });
    expect(await log.erasePayload(d.intentDigest!)).toBe(true);
    const out = await report(d.appended.seq, { name: 'erase-me', arguments: { n: 2 } });
    expect(out.flags).toEqual(['intent-erased']);
    expect(out.drift).toBeNull();
    expect(entryOf(out.receipt).authorization).toBe(d.appended.seq);
  });

  describe('no authorization: recorded, flagged unauthorized, never dropped', () => {
    const cases: [string, () => Promise<number | null>, RegExp][] = [
      ['no seq at all', async () => null, /no authorization named/],
      ['an unknown seq', async () => 1_000_000, /no entry 1000000/],
      ['a deny', async () => (await decide({ event: 'tools/call', phase: 'request', payload, context: ctx, guards: [{ name: 'test', record: {}, deny: 'no' }] }, { policy: EMPTY_POLICY, log })).appended.seq, /was a deny/],
      ['a response-phase decision', async () => (await decide({ event: 'tools/call', phase: 'response', payload: { content: [] }, context: ctx }, { policy: EMPTY_POLICY, log })).appended.seq, /response-phase/],
      ['another tenant\'s decision', async () => (await allow(payload, { ...ctx, tenant: 'globex' })).appended.seq, /another tenant/],
      ['an entry that is not a decision', async () => (await log.append({ type: 'policy', time: T, action: 'activate' })).seq, /policy entry, not a decision/],
    ];
    for (const [name, seqOf, reason] of cases) {
      it(name, async () => {
        const seq = await seqOf();
        const before = await log.size();
        const out = await report(seq, payload);
        expect(await log.size()).toBe(before + 1);
        expect(out.flags).toEqual(['unauthorized']);
        expect(out.drift).toBeNull();
        const e = entryOf(out.receipt);
        expect(e).toMatchObject({ type: 'execution', authorization: null, intent: null, drift: null, flags: ['unauthorized'], claimed: { authorization: seq } });
        expect(e.claimed.reason).toMatch(reason);
        // The flag says why, in the entry and the answer.
        expect(out.why.unauthorized).toMatch(reason);
        expect(e.why.unauthorized).toBe(out.why.unauthorized);
        expect(verifyReceipt(out.receipt, { verifiers: keys.verifiers }).ok).toBe(true);
      });
    }
  });

  it('rejects executed parameters JCS cannot represent (nothing written)', async () => {
    const before = await log.size();
    await expect(report(null, { n: Number.NaN })).rejects.toMatchObject({ code: expect.stringMatching(/^ERR_/) });
    expect(await log.size()).toBe(before);
  });
});
