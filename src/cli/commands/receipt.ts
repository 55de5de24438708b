// vouch receipt SEQ: print the receipt of one entry from a data directory, read-only (a running
// gateway or service may hold the writer lock; SQLite WAL lets readers in). What GET
// /v1/entries/SEQ answers as `receipt`, for a gateway over stdio that serves no HTTP (issue 37).
import { writeFileSync } from 'node:fs';
import { createSigner, type SignatureAlg } from '../../crypto/index.js';
import { VouchError } from '../../errors.js';
import { hashLeaf, inclusionProof, parseNote } from '../../log/index.js';
import { buildCoseReceipt, buildReceipt } from '../../receipt/index.js';
import { loadKeys } from '../../store/node.js';
import { buildTimestampEvidence } from '../../timestamp/evidence-format.js';
import { readTimestamps } from '../../timestamp/node-tsa.js';
import { parse } from '../args.js';
import { EXIT, UsageError, type Io } from '../io.js';
import { openLogReadOnly, originOf, TENANT_OPTION } from './_audit-open.js';

export const help = `vouch receipt SEQ [--data DIR] [--tenant T]
vouch receipt SEQ --format cose [--alg ML-DSA-65|Ed25519] --out FILE [--data DIR] [--tenant T]

Prints the receipt of entry SEQ of the tenant's log (the entry bytes, its leaf hash, the
inclusion proof and the newest signed checkpoint) as one JSON object: what GET /v1/entries/SEQ
answers as "receipt", and what a gateway answer names in _meta["io.vouch/receipt-command"].
Check it with \`vouch verify FILE --key KEYS\`. Reads the log read-only, so a running gateway
or service may hold it. An entry not yet covered by a signed checkpoint (the gateway's default
--wait durable) exits 3 saying so: run it again a moment later.

--format cose writes the same proof as a COSE receipt (RFC 9942, RFC9162_SHA256) to FILE: a
COSE_Sign1 by the log's --alg key (default ML-DSA-65, COSE alg -49; Ed25519 as EdDSA, -8, for
tools without ML-DSA) over the root of the newest checkpoint, which that key must have signed.
Signing needs the data directory's key files. docs/verifying-cose.md says how to check it.`;

const FORMATS = ['json', 'cose'] as const;
const ALGS: readonly SignatureAlg[] = ['ML-DSA-65', 'Ed25519'];

export async function run(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, { ...TENANT_OPTION, format: { type: 'string', default: 'json' }, alg: { type: 'string', default: 'ML-DSA-65' }, out: { type: 'string' } }, true);
  if (values.help) return io.out(help), EXIT.ok;
  if (positionals.length !== 1 || !/^(0|[1-9][0-9]{0,15})$/.test(positionals[0]) || !Number.isSafeInteger(Number(positionals[0]))) throw new UsageError('receipt takes one SEQ: a non-negative integer (the "io.vouch/seq" of an answer)');
  const seq = Number(positionals[0]);
  if (!FORMATS.includes(values.format as never)) throw new UsageError(`--format is one of ${FORMATS.join(', ')}`);
  const cose = values.format === 'cose';
  if (!ALGS.includes(values.alg as SignatureAlg)) throw new UsageError(`--alg is one of ${ALGS.join(', ')}`);
  if (cose && !values.out) throw new UsageError('--format cose writes binary CBOR: give --out FILE');
  if (!cose && values.out) throw new UsageError('--out is for --format cose (the JSON receipt goes to stdout)');
  const store = openLogReadOnly(values.data!, values.tenant!);
  try {
    const stored = store.entry(seq);
    if (!stored) throw new VouchError('ERR_NOT_FOUND', `no entry ${seq} in the log of tenant ${values.tenant} (it has ${store.size()})`);
    const cp = store.latestCheckpoint();
    if (!cp || cp.size <= seq) throw new VouchError('ERR_NOT_FOUND', `entry ${seq} is durable but no signed checkpoint covers it yet (newest: size ${cp?.size ?? 0}): run this again in a moment`);
    const proof = inclusionProof(seq, cp.size, store);
    if (!cose) {
      // The earliest RFC 3161 stamp covering the entry, when the service time-stamps (as GET /v1/entries/SEQ).
      const stamps = readTimestamps(values.data!);
      let timestamp;
      try {
        const t = stamps?.covering(parseNote(cp.note).text.split('\n')[0], seq);
        timestamp = t && t.size <= cp.size ? buildTimestampEvidence(t.note, inclusionProof(seq, t.size, store), t.token) : undefined;
      } finally {
        stamps?.close();
      }
      io.out(JSON.stringify(buildReceipt({ bytes: stored.bytes, leaf: hashLeaf(stored.bytes), seq, proof, checkpoint: cp.note, timestamp })));
      return EXIT.ok;
    }
    const alg = values.alg as SignatureAlg;
    const keys = loadKeys(values.data!, values['key-name']!);
    const seed = alg === 'ML-DSA-65' ? keys.mldsaSeed : keys.ed25519Seed;
    if (!seed) throw new VouchError('ERR_KEY_MISSING', `the data directory ${values.data} has no ${alg} key file: give --alg ML-DSA-65`);
    const base = createSigner(alg, seed);
    const signer = { alg: alg as 'ML-DSA-65' | 'Ed25519', publicKey: base.publicKey, sign: (m: Uint8Array) => base.sign(m) };
    const bytes = await buildCoseReceipt({ entry: stored.bytes, seq, proof, checkpoint: cp.note, keyNames: [originOf(store, values.tenant!, values['key-name']!), values['key-name']!] }, signer);
    writeFileSync(values.out!, bytes);
    io.out(`wrote ${values.out}: COSE receipt (RFC 9942) of entry ${seq}, tree size ${cp.size}, ${alg}, ${bytes.length} bytes`);
    return EXIT.ok;
  } finally {
    store.close();
  }
}
