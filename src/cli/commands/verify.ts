// vouch verify RECEIPT --key KEYFILE: check a receipt offline (no data directory, no network).
// This file only reads files; every check is in src/receipt (portable). A directory or a
// .tar.gz argument is an audit bundle, handed to verify-bundle.ts when that command exists.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { parseJson } from '../../canonical/index.js';
import { parseJwks, type PublicKeyEntry } from '../../crypto/index.js';
import { InputError, codeOf, publicMessage } from '../../errors.js';
import { hashLeaf } from '../../log/index.js';
import type { Trust } from '../../receipt/index.js';
import { formatCoseChecklist, coseVerdict, looksLikeCoseSign1, verifyCoseReceipt } from '../../receipt/index.js';
import { formatChecklist, summarizeEntry, parseNewerCheckpoint, parseTlogProof, verdictFields, verifyReceiptFully, type NewerCheckpoint } from '../../receipt/index.js';
import { parse } from '../args.js';
import { EXIT, UsageError, type Io } from '../io.js';
import { kindOf, notAReceipt, readKeyFile } from './_input-kind.js';
import { isSep3004Argv, verifySep3004Command } from './_verify-sep3004.js';
import { WITNESS_OPTIONS, witnessPolicy, type WitnessPolicy } from './_witness-policy.js';
import { requirePqOption } from './_require-pq.js';
import { readTsaCert, receiptTimestampCheck } from './_tsa-check.js';

export const help = `vouch verify RECEIPT --key KEYFILE [--checkpoint NEWER] [--origin O] [--caller-key FILE] [--witness VKEY]... [--min-witnesses K] [--tsa-cert FILE] [--require-pq any|mldsa65] [--classical-ok] [--json]
vouch verify BUNDLE ...            (a directory or .tar.gz: an audit bundle)
vouch verify FILE.json [--format sep3004] [--data DIR [--tenant T]] [--json]
                                   (SEP-3004 audit records: the checks C-REC-1..7; with --data, also
                                   that each record is what the signed log says: docs/verifying-sep3004.md)

Checks a receipt offline, with nothing but the receipt and a trusted public key: the entry
bytes, the leaf hash, the index, the checkpoint signature, the origin and the RFC 9162
inclusion proof. Prints the checklist (✓ / ✗ per check).

  RECEIPT              a receipt JSON file (or what GET /v1/entries/SEQ answered), a
                       c2sp.org/tlog-proof@v1 text file, or a COSE receipt (RFC 9942: what
                       \`vouch receipt SEQ --format cose\` or GET /v1/entries/SEQ/receipt.cose
                       gave; checks format, vds, entry, index, origin, inclusion, signature,
                       post-quantum; --checkpoint and --witness do not apply to it)
  --key KEYFILE        trusted keys, by shape: vkey lines, a JWKS (the service's
                       /.well-known/vouch/keys) or an audit bundle's keys.json; \`vouch keys
                       export\` writes each, while the service runs
  --origin O           the log the receipt must come from (e.g. vouch.local/acme)
  --caller-key FILE    the caller's keys (JWKS): also check the caller's co-signature over the
                       entry's input
  --checkpoint NEWER   what GET /v1/proofs/consistency?from=<receipt size> returned: the log must
                       extend the receipt's tree ("truncation: checked"). A bare checkpoint
                       (GET /v1/checkpoint, or the shutdown checkpoint vouch serve writes to
                       DATA/checkpoints/TENANT.note) is compared at the
                       receipt's size only; of another size the verdict says "truncation: not
                       checked" and which proof to fetch, never INVALID. Two checkpoints that
                       cannot both be true are printed in full as evidence of a fork. Without it:
                       "truncation: not checked" (docs/verifying.md).
  --witness VKEY       a witness the checkpoint must be cosigned by (c2sp.org/tlog-cosignature:
                       a cosigner vkey, type 0x04 Ed25519 or 0x06 ML-DSA-44, or a file of them);
                       repeatable. The verdict names each witness that cosigned and the latest
                       cosignature time: trusted time by which the entry existed.
  --min-witnesses K    at least K distinct trusted witnesses must have cosigned (default 1 when
                       --witness is given)
  --tsa-cert FILE      the RFC 3161 time-stamping authority you trust (its certificate or CA, PEM
                       or DER): the receipt's TSA token must verify against it, and the verdict
                       says "time-stamped by <TSA> at <genTime>" (docs/verifying-time.md). Without
                       it a token is "not checked", never INVALID.
  --require-pq R       the post-quantum signature the checkpoint needs: \`any\` (default) an
                       ML-DSA-44 (c2sp.org/tlog-cosignature 0x06) or ML-DSA-65 signature by a
                       trusted key; \`mldsa65\` only ML-DSA-65 (NIST category 3, for a policy that
                       demands it). The verdict and --json ("postQuantum") name the one that counted.
  --classical-ok       accept a checkpoint whose only valid signatures are classical (Ed25519).
                       Without it a post-quantum signature (--require-pq) is required; the
                       verdict says when classical signatures alone were accepted.

Under the first line: what the entry says was decided, from the signed entry alone, e.g.
  tools/call echo by alice at 2026-12-01T10:00:00Z: allow
(arguments are digests in the entry and never printed). --json: the same under "entry".
The verdict names the algorithms and key ids that verified.
Exit codes: 0 valid, 1 invalid (every failing check listed), 2 usage, 3 unreadable input.`;

const TLOG_PROOF_HEADER = 'c2sp.org/tlog-proof@v1';

/** Read a file, or fail with an input error (exit 3) that names it. */
function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new InputError('ERR_INPUT', `cannot read ${what} ${path}: ${(e as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
}

function readReceipt(path: string): unknown {
  const text = readText(path, 'receipt');
  if (text.startsWith(TLOG_PROOF_HEADER + '\n')) return parseTlogProof(text, hashLeaf);
  let doc: unknown;
  try {
    doc = parseJson(text);
  } catch (e) {
    const why = notAReceipt(kindOf(text));
    throw why ? new InputError('ERR_INPUT', `${path}: ${why}`) : e;
  }
  const kind = kindOf(text, doc);
  const why = notAReceipt(kind);
  if (why) throw new InputError('ERR_INPUT', `${path}: ${why}`);
  if (kind !== 'entry-answer') return doc;
  // What GET /v1/entries/SEQ answered: the receipt is one member of it.
  const receipt = (doc as { receipt: unknown }).receipt;
  if (receipt === null) throw new InputError('ERR_INPUT', `${path} is what GET /v1/entries/SEQ answered before a checkpoint covered the entry (pending): fetch it again`);
  return receipt;
}

/** The file's bytes, to tell a binary COSE receipt; undefined when unreadable (readReceipt says why). */
function readBytes(path: string): Uint8Array | undefined {
  try {
    return new Uint8Array(readFileSync(path));
  } catch {
    return undefined;
  }
}

/** A COSE receipt (RFC 9942): its own checklist (cose-verify.ts), pinned keys as for any receipt. */
function verifyCose(path: string, bytes: Uint8Array, values: { key?: string; origin?: string; 'classical-ok'?: boolean; json?: boolean; checkpoint?: string; 'caller-key'?: string; witness?: string[]; 'min-witnesses'?: string }, io: Io): number {
  const notForCose: string[] = (['checkpoint', 'caller-key', 'min-witnesses'] as const).filter((k) => values[k] !== undefined);
  if (values.witness?.length) notForCose.push('witness');
  if (notForCose.length) throw new UsageError(`${notForCose.map((k) => `--${k}`).join(', ')} do(es) not apply to a COSE receipt: it carries no checkpoint note (verify the JSON receipt of the same entry for those)`);
  let trust: Trust;
  try {
    trust = readKeyFile(values.key!);
  } catch (e) {
    io.err(`vouch verify: error ${codeOf(e)}: ${publicMessage(e)}`);
    return EXIT.input;
  }
  const report = verifyCoseReceipt(bytes, { trust, origin: values.origin, classicalOk: values['classical-ok'] });
  if (values.json) {
    io.out(JSON.stringify({ ok: report.ok, verdict: coseVerdict(report), receipt: path, format: 'cose', alg: report.alg, kid: report.kid, issuer: report.issuer, treeSize: report.treeSize, root: report.root, classicalOnly: report.classicalOnly, truncation: 'not checked', checks: report.checks, entry: report.entry && summarizeEntry(report.entry) }));
  } else {
    for (const line of formatCoseChecklist(report, path)) io.out(line);
  }
  return report.ok ? EXIT.ok : EXIT.findings;
}

function readCallerKeys(path: string): PublicKeyEntry[] {
  const text = readText(path, 'caller key file');
  const doc = parseJson(text);
  // A single JWK is accepted as a set of one.
  const set = typeof doc === 'object' && doc !== null && !Array.isArray(doc) && !('keys' in doc) ? { keys: [doc] } : doc;
  const keys = parseJwks(set);
  if (keys.length === 0) throw new InputError('ERR_INPUT', `${path} holds no ML-DSA-65 or Ed25519 key`);
  return keys;
}

function isBundle(path: string): boolean {
  return path.endsWith('.tar.gz') || path.endsWith('.tgz') || (existsSync(path) && statSync(path).isDirectory());
}

/** Audit bundles are verified by verify-bundle.ts (another command, loaded only for a bundle); this is the dispatch point. */
async function verifyBundle(argv: string[], io: Io): Promise<number> {
  // A literal specifier, so the esbuild bundle (scripts/bundle-dist.mjs) carries the module.
  return (await import('./verify-bundle.js')).verifyBundleCommand(argv, io);
}

export async function run(argv: string[], io: Io): Promise<number> {
  if (argv[0] !== undefined && !argv[0].startsWith('-') && isBundle(argv[0])) return verifyBundle(argv, io);
  if (isSep3004Argv(argv)) return verifySep3004Command(argv, io);
  const { values, positionals } = parse(argv, { key: { type: 'string' }, checkpoint: { type: 'string' }, origin: { type: 'string' }, 'caller-key': { type: 'string' }, 'classical-ok': { type: 'boolean', default: false }, 'tsa-cert': { type: 'string' }, 'require-pq': { type: 'string' }, ...WITNESS_OPTIONS }, true);
  if (values.help) return io.out(help), EXIT.ok;
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'give one RECEIPT file' : 'give exactly one RECEIPT file');
  const requirePq = requirePqOption(values['require-pq']);
  if (!values.key) throw new UsageError('--key KEYFILE is required (vkey lines, a JWKS or a bundle\'s keys.json: `vouch keys export --data DIR` prints them)');
  const [path] = positionals;
  const bytes = readBytes(path);
  if (bytes && looksLikeCoseSign1(bytes)) return verifyCose(path, bytes, values, io);
  let input: { receipt: unknown; trust: Trust; callerKeys?: PublicKeyEntry[]; newer?: NewerCheckpoint };
  let pinned: ReturnType<typeof readTsaCert> | undefined;
  try {
    pinned = values['tsa-cert'] === undefined ? undefined : readTsaCert(values['tsa-cert']);
    input = {
      receipt: readReceipt(path),
      trust: readKeyFile(values.key),
      callerKeys: values['caller-key'] ? readCallerKeys(values['caller-key']) : undefined,
      newer: values.checkpoint ? parseNewerCheckpoint(readText(values.checkpoint, 'checkpoint file'), `the checkpoint file ${values.checkpoint}`) : undefined,
    };
  } catch (e) {
    // Unreadable input is not a verdict on the receipt: exit 3, whatever the parser's code.
    io.err(`vouch verify: error ${codeOf(e)}: ${publicMessage(e)}`);
    return EXIT.input;
  }
  let policy: WitnessPolicy;
  try {
    policy = witnessPolicy(values);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    io.err(`vouch verify: error ${codeOf(e)}: ${publicMessage(e)}`);
    return EXIT.input;
  }
  const timestamp = await receiptTimestampCheck(input.receipt, input.trust, pinned, values['classical-ok']);
  const report = verifyReceiptFully({ ...input, origin: values.origin, classicalOk: values['classical-ok'], requirePq, witnesses: policy.check, cosignedAt: policy.cosignedAt, timestamp });
  if (values.json) {
    io.out(JSON.stringify({ ...verdictFields(report), receipt: path, checks: report.checks, entry: report.entry && summarizeEntry(report.entry), ...(report.evidence && { evidence: report.evidence }), ...policy.json() }));
  } else {
    for (const line of formatChecklist(report, path)) io.out(line);
  }
  return report.ok ? EXIT.ok : EXIT.findings;
}

