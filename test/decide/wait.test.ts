// wait "durable" vs "signed" through decide() over the real SQLite log (issue 17): a durable
// answer carries the committed entry before any signature, its receipt follows; and when the
// signer falls behind the coverage bound, no decision is made (ERR_STORE_BEHIND, HTTP 503).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { digestJson, toHex } from '../../src/canonical/index.js';
import { decide, type ActivePolicy } from '../../src/decide/index.js';
import { httpStatusOf } from '../../src/http/errors.js';
import { Appender, openCheckpoint, verifyInclusion } from '../../src/log/index.js';
import { JSONRPC, rpcCodeOf } from '../../src/protocol/index.js';
import { openSqliteStore } from '../../src/store/node.js';
import { allow, validator } from '../interceptors/chain-kit.js';
import { testKeys } from '../helpers/keys.js';

const keys = testKeys();
const ORIGIN = 'test.vouch/wait';
const CTX = { time: '2026-11-30T10:00:00Z', principal: 'alice', tenant: 'default', sessionId: 's1' };
const CALL = { event: 'tools/call', phase: 'request' as const, payload: { name: 'echo', arguments: { text: 'hi' } }, context: CTX };
const policy: ActivePolicy = { interceptors: [Object.assign(validator('authz', allow), { authorizes: true })], chainDigest: digestJson({ c: 1 }), policyDigest: digestJson({ p: 1 }), engines: { vouch: 'test' }, options: {} };

/** A log whose ML-DSA signer waits for `release()` (an HSM or a starved thread). */
function gatedLog(maxCoverageMs?: number) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const signers = keys.signers.map((s) => ({ ...s, sign: async (m: Uint8Array) => (await gate, s.sign(m)) }));
  const store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'vouch-wait-')), 'log.db'));
  return { store, release, appender: Appender.open({ origin: ORIGIN, storage: store, signers, verifiers: keys.verifiers, maxCoverageMs }) };
}

describe('wait', () => {
  it('"durable" answers once the entry is committed, before any signature; the signed receipt follows and verifies', async () => {
    const { store, appender, release } = gatedLog();
    const out = await decide({ ...CALL, wait: 'durable' }, { policy, log: appender });
    expect(out.effect).toBe('allow');
    expect(out.receipt).toBeUndefined();
    expect(store.entry(out.appended.seq)?.bytes).toEqual(out.appended.bytes); // durable: in the store
    expect(store.latestCheckpoint()).toBeUndefined(); // and no checkpoint signed yet
    release();
    if (out.receipt) throw new Error('expected a durable answer');
    const receipt = await out.signed;
    const cp = openCheckpoint(receipt.checkpoint, keys.verifiers);
    expect(receipt.leafHash).toBe(toHex(out.appended.leaf));
    expect(verifyInclusion(receipt.index, cp.size, out.appended.leaf, receipt.proof.map((h: string) => Uint8Array.from(Buffer.from(h, 'hex'))), cp.root)).toBe(true);
    await appender.close();
    store.close();
  });

  it('"signed" (the default) does not answer before the checkpoint is signed', async () => {
    const { store, appender, release } = gatedLog();
    let answered = false;
    const p = decide(CALL, { policy, log: appender }).then((o) => ((answered = true), o));
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe(false);
    expect(store.size()).toBe(1); // durable already, answered only once signed
    release();
    const out = await p;
    expect(out.receipt.checkpoint).toMatch(/^test\.vouch\/wait\n1\n/);
    await appender.close();
    store.close();
  });

  it('stops deciding (503, ERR_STORE_BEHIND) while signing is behind the coverage bound', async () => {
    const { store, appender, release } = gatedLog(40);
    await decide({ ...CALL, wait: 'durable' }, { policy, log: appender });
    await new Promise((r) => setTimeout(r, 70));
    const err = await decide({ ...CALL, wait: 'durable' }, { policy, log: appender }).catch((e) => e);
    expect(err).toMatchObject({ code: 'ERR_STORE_BEHIND' });
    expect(httpStatusOf(err)).toBe(503);
    expect(rpcCodeOf(err)).toBe(JSONRPC.unavailable);
    expect(store.size()).toBe(1); // nothing recorded, nothing allowed
    release();
    await appender.close();
    expect(store.latestCheckpoint()?.size).toBe(1);
    store.close();
  });
});
