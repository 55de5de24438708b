// Offline verification of a COSE receipt (RFC 9942, RFC9162_SHA256) as a named checklist: the
// inclusion proof first yields the root (section 5.2: the payload is detached, so the root is
// recomputed, never read), then the signature over that root by a pinned key. Portable.
import { bytesEqual, toHex } from '../canonical/index.js';
import { createVerifier, type PublicKeyEntry, type SignatureAlg } from '../crypto/index.js';
import { checkKeyWindows, decodeEntry, hashLeaf, POST_QUANTUM_ALG, rootFromInclusion, type Entry, type KeyWindow } from '../log/index.js';
import { COSE_ALG, parseCoseReceipt, sigStructure, VDS_RFC9162_SHA256, type CoseReceipt } from './cose-format.js';
import { coseKid } from './cose-sign.js';
import { summarizeEntry } from './entry-summary.js';
import type { Trust } from './trust.js';

export type CoseCheckName = 'format' | 'vds' | 'entry' | 'index' | 'origin' | 'inclusion' | 'signature' | 'post-quantum';

export interface CoseCheck {
  name: CoseCheckName;
  ok: boolean;
  detail: string;
}

export interface CoseReport {
  ok: boolean;
  checks: CoseCheck[];
  entry?: Entry;
  /** The issuer (CWT iss): the log's origin. */
  issuer?: string;
  treeSize?: number;
  /** hex of the root the proof leads to (and the signature covers, when it verified). */
  root?: string;
  /** The algorithm and kid (hex) of the signature that verified. */
  alg?: SignatureAlg;
  kid?: string;
  /** Accepted on an Ed25519 signature alone (`classicalOk`). */
  classicalOnly: boolean;
}

export interface VerifyCoseOptions {
  trust: Trust;
  /** When set, the log the receipt must come from. */
  origin?: string;
  /** The entry bytes, for a receipt that does not carry them. */
  entry?: Uint8Array;
  classicalOk?: boolean;
}

const ALG_OF = new Map<number, SignatureAlg>(Object.entries(COSE_ALG).map(([n, v]) => [v, n as SignatureAlg]));

interface TrustedKey {
  alg: SignatureAlg;
  publicKey: Uint8Array;
  window?: KeyWindow;
}

/** Every pinned key of `alg`, with its window in `origin`'s log (vkeys file `# key` lines or JWKS vouch_logs). */
function trustedKeys(trust: Trust, origin: string, alg: SignatureAlg): TrustedKey[] {
  const out: TrustedKey[] = [];
  const add = (k: TrustedKey) => {
    const had = out.find((o) => bytesEqual(o.publicKey, k.publicKey));
    if (!had) out.push(k);
    else if (k.window && !had.window) had.window = k.window;
  };
  for (const v of trust.vkeys) {
    if (v.alg !== alg) continue;
    const label = `${v.name}+${toHex(v.keyId)}`;
    add({ alg, publicKey: v.publicKey, window: trust.windows?.find((w) => w.label === label && w.origin === origin)?.window ?? v.window });
  }
  for (const k of trust.jwks as PublicKeyEntry[]) if (k.alg === alg) add({ alg, publicKey: k.publicKey, window: k.logs?.[origin] });
  return out;
}

export function verifyCoseReceipt(bytes: Uint8Array, opts: VerifyCoseOptions): CoseReport {
  const checks: CoseCheck[] = [];
  const pass = (name: CoseCheckName, detail: string) => checks.push({ name, ok: true, detail });
  const fail = (name: CoseCheckName, detail: string) => checks.push({ name, ok: false, detail });
  const report = (extra: Partial<CoseReport> = {}): CoseReport => ({ ok: checks.length > 0 && checks.every((c) => c.ok), checks, classicalOnly: false, ...extra });

  let r: CoseReceipt;
  try {
    r = parseCoseReceipt(bytes);
    pass('format', 'tagged COSE_Sign1 (RFC 9052) with a detached payload, inclusion proof in vdp (RFC 9942)');
  } catch (e) {
    fail('format', (e as Error).message);
    return report();
  }
  const alg = ALG_OF.get(r.alg);
  if (r.vds === VDS_RFC9162_SHA256) pass('vds', 'vds 1: RFC9162_SHA256');
  else fail('vds', `vds ${r.vds} is not RFC9162_SHA256 (1), the only structure vouch logs`);
  const entryBytes = r.entry ?? opts.entry;
  let entry: Entry | undefined;
  if (!entryBytes) fail('entry', 'the receipt carries no entry bytes (io.vouch/entry) and none were given');
  else if (r.entry && opts.entry && !bytesEqual(r.entry, opts.entry)) fail('entry', 'the entry bytes given differ from those the receipt carries');
  else {
    try {
      entry = decodeEntry(entryBytes);
      pass('entry', `canonical entry v1, ${entry.type} #${entry.seq} of ${entry.log}`);
    } catch (e) {
      fail('entry', (e as Error).message);
    }
  }
  if (entry) {
    if (entry.seq === r.leafIndex) pass('index', `leaf_index ${r.leafIndex} matches the entry's seq`);
    else fail('index', `leaf_index ${r.leafIndex} but the entry says seq ${entry.seq}`);
  }
  const problems: string[] = [];
  if (entry && entry.log !== r.issuer) problems.push(`entry is of log ${entry.log}, the receipt's issuer is ${r.issuer}`);
  if (opts.origin !== undefined && r.issuer !== opts.origin) problems.push(`expected log ${opts.origin}, receipt is from ${r.issuer}`);
  if (problems.length) fail('origin', problems.join('; '));
  else pass('origin', `issuer (CWT iss) ${r.issuer}`);

  // RFC 9942 section 5.2: apply the proof to the entry to get the root; only then the signature.
  let root: Uint8Array | undefined;
  if (r.treeSize !== r.signedTreeSize) fail('inclusion', `the proof's tree_size ${r.treeSize} is not the signed tree size ${r.signedTreeSize}`);
  else if (entryBytes) {
    try {
      root = rootFromInclusion(r.leafIndex, r.treeSize, hashLeaf(entryBytes), r.path);
      pass('inclusion', `the RFC 9162 inclusion proof takes entry ${r.leafIndex} to root ${toHex(root).slice(0, 16)}... for tree size ${r.treeSize} (the signature check says whether that root was signed)`);
    } catch (e) {
      fail('inclusion', (e as Error).message);
    }
  }
  const extra: Partial<CoseReport> = { entry, issuer: r.issuer, treeSize: r.treeSize, ...(root && { root: toHex(root) }) };
  if (!alg) {
    fail('signature', `alg ${r.alg} is not one vouch signs with (ML-DSA-65 ${COSE_ALG['ML-DSA-65']}, EdDSA ${COSE_ALG.Ed25519})`);
    return report(extra);
  }
  if (!root) {
    fail('signature', 'not checked: no root (the inclusion proof did not verify), and the payload is detached');
    return report(extra);
  }
  const kid = toHex(r.kid);
  const keys = trustedKeys(opts.trust, r.issuer, alg).filter((k) => bytesEqual(coseKid(r.issuer, alg, k.publicKey), r.kid));
  if (keys.length === 0) {
    fail('signature', `no trusted ${alg} key has kid ${kid} for issuer ${r.issuer} (the kid is the key's C2SP key id under the origin)`);
    return report(extra);
  }
  const message = sigStructure(r.protectedBytes, root);
  const good = keys.find((k) => createVerifier(alg, k.publicKey).verify(message, r.signature));
  if (!good) {
    fail('signature', `the ${alg} signature (kid ${kid}) does not verify over the Sig_structure of this root`);
    return report(extra);
  }
  try {
    checkKeyWindows([{ name: r.issuer, alg, keyId: kid, window: good.window }], r.treeSize);
    pass('signature', `${alg} (COSE alg ${r.alg}) by trusted key kid ${kid} over the root of size ${r.treeSize}`);
  } catch (e) {
    fail('signature', (e as Error).message);
  }
  const classicalOnly = alg !== POST_QUANTUM_ALG;
  if (!classicalOnly) pass('post-quantum', `${alg} signature`);
  else if (opts.classicalOk) pass('post-quantum', `classical (${alg}) signature only, accepted by --classical-ok`);
  else fail('post-quantum', `an ${alg} signature alone is classical: verify the ${POST_QUANTUM_ALG} receipt (--alg ${POST_QUANTUM_ALG}), or accept it with --classical-ok`);
  return report({ ...extra, alg, kid, classicalOnly });
}

/** One line per check (✓ / ✗), then the verdict. */
export function formatCoseChecklist(report: CoseReport, label: string): string[] {
  const e = report.entry;
  const lines = [`${label} (COSE receipt, RFC 9942)${e ? `: ${e.type} #${e.seq} of ${e.log}` : ''}`];
  if (e) lines.push(`  ${summarizeEntry(e).text}${report.ok ? '' : '  (NOT PROVEN: see the failed checks)'}`);
  for (const c of report.checks) lines.push(`  ${c.ok ? '\u2713' : '\u2717'} ${c.name.padEnd(20)} ${c.detail}`);
  lines.push(coseVerdict(report));
  return lines;
}

export function coseVerdict(report: CoseReport): string {
  const failed = report.checks.filter((c) => !c.ok);
  if (!report.ok) return `INVALID: ${failed.length} check(s) failed: ${failed.map((c) => c.name).join(', ')}`;
  return `VALID (${report.alg}${report.classicalOnly ? `, classical signature only (no ${POST_QUANTUM_ALG}), accepted by --classical-ok` : ''}; truncation: not checked)`;
}
