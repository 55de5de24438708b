// explainKeyFiles (issue 37): a note signed by keys the files are not is a wrong directory or key
// files; a file missing is named; a note the files' keys signed, with a stranger's line added, is
// left to the caller's "altered" finding; witness cosignature lines are not the log's.
import { describe, expect, it } from 'vitest';
import { signCheckpoint, signNote, parseNote, type PublicKey } from '../../src/log/index.js';
import { explainKeyFiles, logSignersOf } from '../../src/store/key-files-check.js';
import { testKeys } from '../helpers/keys.js';

const ORIGIN = 'vouch.local/default';
const ours = testKeys(ORIGIN, 7);
const theirs = testKeys(ORIGIN, 21);
const files = (k: ReturnType<typeof testKeys>): PublicKey[] => k.verifiers.map((v) => ({ alg: v.alg, publicKey: v.publicKey }));
const note = (k: ReturnType<typeof testKeys>) => signCheckpoint({ origin: ORIGIN, size: 3, root: new Uint8Array(32).fill(1), extensions: [] }, k.signers);

describe('explainKeyFiles', () => {
  it('our files, our note: nothing to explain', async () => {
    expect(explainKeyFiles(await note(ours), files(ours), ORIGIN)).toBeUndefined();
  });

  it("another instance's note (or key files): ERR_KEY_MISMATCH naming its key and ours", async () => {
    const n = await note(theirs);
    const e = explainKeyFiles(n, files(ours), ORIGIN);
    const [ml] = logSignersOf(n);
    expect(e).toMatchObject({ code: 'ERR_KEY_MISMATCH', message: expect.stringContaining(`signed by key ${ml.label} (ML-DSA-65), which is not in keys/: wrong data directory or key files?`) });
  });

  it('a file missing: ERR_KEY_MISSING naming the file and the key', async () => {
    const n = await note(ours);
    const ed = logSignersOf(n).find((l) => l.alg === 'Ed25519')!;
    expect(explainKeyFiles(n, files(ours).filter((k) => k.alg !== 'Ed25519'), ORIGIN)).toMatchObject({ code: 'ERR_KEY_MISSING', message: expect.stringContaining(`keys/ed25519.key is missing (log ${ORIGIN} is signed by key ${ed.label}, Ed25519)`) });
  });

  it("our note with a stranger's line added is not explained away (the caller says altered)", async () => {
    const n = await note(ours);
    const extra = await signNote(parseNote(n).text, [theirs.signers[0]]);
    const both = n.replace(/\n$/, '') + '\n' + extra.split('\n').filter((l) => l.startsWith('\u2014')).join('\n') + '\n';
    expect(logSignersOf(both)).toHaveLength(3);
    expect(explainKeyFiles(both, files(ours), ORIGIN)).toBeUndefined();
  });
});
