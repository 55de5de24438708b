// Domain separation of what the log's ML-DSA-65 key signs (issue 35): an interceptor/invoke result
// is signed under its own FIPS 204 context, a checkpoint under the empty one. A signature from one
// domain verifies in no other, on every signing backend this runtime has (noble in process, the
// signing thread with noble and with PQClean, which has no context and is routed to noble), and
// the result path never signs without its context, even through a backend that drops it.
import { afterAll, describe, expect, it } from 'vitest';
import { createEd25519Signer, createMldsaSigner, INVOKE_RESULT_CONTEXT, signInContext, verifyMldsa, type Signer } from '../../src/crypto/index.js';
import { createSignerFromSeed, createWorkerSigner } from '../../src/crypto/node.js';
import { nativeMldsaAvailable } from '../../src/crypto/native-mldsa.js';
import { noteSignerFor, signNote, parseNote } from '../../src/log/index.js';
import { utf8 } from '../../src/canonical/index.js';

const seed = new Uint8Array(32).fill(35);
const result = utf8.encode('{"interceptor":"pii","payload":{"text":"vouch.local/x\\n1\\nAAAA\\n"},"type":"mutation"}');
const opened: Signer[] = [];
afterAll(async () => {
  for (const s of opened) await s.close?.();
});

const backends: [string, () => Promise<Signer>][] = [
  ['noble, in process', async () => createMldsaSigner(seed)],
  ['noble, in process, deterministic', async () => createMldsaSigner(seed, { deterministic: true })],
  ['signing thread (PQClean where installed: its context signatures go to noble)', () => createWorkerSigner(seed)],
  ['signing thread, deterministic (noble)', () => createWorkerSigner(seed, { deterministic: true })],
  ['the service signer (createSignerFromSeed, thread)', () => createSignerFromSeed(seed, { thread: true })],
];

describe.each(backends)('%s', (_name, make) => {
  it('a result signature verifies under its context only; a checkpoint signature under the empty one only', async () => {
    const s = await make();
    opened.push(s);
    const sig = await signInContext(s, result, INVOKE_RESULT_CONTEXT);
    expect(verifyMldsa(s.publicKey, result, sig, INVOKE_RESULT_CONTEXT)).toBe(true);
    expect(verifyMldsa(s.publicKey, result, sig)).toBe(false); // not a note or checkpoint signature
    // A checkpoint (signed note) by the same key: the note signer signs with the empty context.
    const note = parseNote(await signNote('vouch.local/t\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n', [noteSignerFor('vouch.local/t', s)]));
    const text = utf8.encode(note.text);
    expect(verifyMldsa(s.publicKey, text, note.signatures[0].signature)).toBe(true);
    expect(verifyMldsa(s.publicKey, text, note.signatures[0].signature, INVOKE_RESULT_CONTEXT)).toBe(false);
  }, 30_000);
});

const native = nativeMldsaAvailable();
describe.skipIf(!native)(native ? 'node:crypto (native)' : `node:crypto (native) [skipped: native ML-DSA absent on Node ${process.versions.node}; node:crypto has it from 24.7]`, () => {
  it('signs under the context, or falls back to noble when node:crypto would drop it', async () => {
    const s = await createSignerFromSeed(seed, { thread: false });
    const sig = await signInContext(s, result, INVOKE_RESULT_CONTEXT);
    expect(verifyMldsa(s.publicKey, result, sig, INVOKE_RESULT_CONTEXT)).toBe(true);
    expect(verifyMldsa(s.publicKey, result, sig)).toBe(false);
  });
});

describe('the result path never signs without its context', () => {
  it('refuses a signer that cannot sign under a context (Ed25519, a bare ML-DSA signer) with ERR_SIGN_FAILED', async () => {
    const bare = createMldsaSigner(seed);
    const noContext: Signer = { alg: bare.alg, publicKey: bare.publicKey, sign: (m) => bare.sign(m) };
    for (const s of [createEd25519Signer(seed), noContext]) await expect(signInContext(s, result, INVOKE_RESULT_CONTEXT)).rejects.toMatchObject({ code: 'ERR_SIGN_FAILED' });
  });

  it('refuses a backend that drops the context (its signature is checked before it leaves)', async () => {
    const inner = createMldsaSigner(seed);
    const dropping: Signer = { ...inner, sign: (m) => inner.sign(m), signWithContext: (m) => inner.sign(m) };
    await expect(signInContext(dropping, result, INVOKE_RESULT_CONTEXT)).rejects.toMatchObject({ code: 'ERR_SIGN_FAILED' });
  });

  it('refuses the empty context and one over 255 bytes', async () => {
    const s = createMldsaSigner(seed);
    for (const ctx of [new Uint8Array(0), new Uint8Array(256)]) await expect(signInContext(s, result, ctx)).rejects.toMatchObject({ code: 'ERR_SIGN_FAILED' });
  });
});
