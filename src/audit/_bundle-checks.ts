// Checks of a bundle that need a little state while entries stream by: which entry a broken
// link points at (one link of lookahead), and the documents the entries name (few per log).
import { digestBytes, toHex, type Digest } from '../canonical/index.js';
import type { NoteVerifier } from '../log/index.js';
import type { TypedEntry } from '../entries/index.js';
import { documentPath } from './bundle-format.js';
import type { BundleReader } from './verify-bundle.js';

/**
 * Entry k records the leaf hash of entry k-1, so one changed entry breaks one or two links:
 * its body changed -> link k+1 only; its prev changed -> links k and k+1. Deciding which needs
 * one link of lookahead; the finding then names the entry that changed.
 */
export class LinkBreaks {
  private pending: number | undefined;
  constructor(private readonly from: number, private readonly report: (seq: number, message: string) => void) {}

  broken(seq: number): void {
    if (this.pending !== undefined && this.pending === seq - 1) {
      this.report(seq - 1, `entry ${seq - 1}: its prev was changed (it matches neither entry ${seq - 2}'s leaf hash nor does entry ${seq} link to it)`);
      this.pending = undefined;
      return;
    }
    this.flush();
    this.pending = seq;
  }

  end(last: number): void {
    const p = this.pending;
    if (p !== undefined && p === last && p > this.from) this.report(p, `entry ${p} (the last): its prev does not match entry ${p - 1}'s leaf hash (entry ${p}'s prev or entry ${p - 1} was changed)`);
    this.flush();
  }

  private flush(): void {
    const p = this.pending;
    this.pending = undefined;
    if (p === undefined) return;
    if (p === this.from) this.report(p, `entry ${p}: its prev does not match range.json's prevLeaf (entry ${p} or range.json was changed)`);
    else this.report(p - 1, `entry ${p - 1} was changed: it no longer hashes to the prev that entry ${p} records`);
  }
}

/** A key given both as a vkey and in the JWKS is one key (verifyNote refuses duplicates). */
export function uniqueVerifiers(vs: NoteVerifier[]): NoteVerifier[] {
  const seen = new Set<string>();
  return vs.filter((v) => {
    const label = `${v.name}+${toHex(v.keyId)}`;
    if (seen.has(label)) return false;
    seen.add(label);
    return true;
  });
}

/** Documents named by entries: each must be in the bundle and hash to its name. Few per log. */
export class DocumentCheck {
  private readonly named = new Map<Digest, 'chain' | 'policy'>();
  private readonly cache = new Map<Digest, Uint8Array | undefined>();
  constructor(private readonly reader: Pick<BundleReader, 'bytes'>) {}

  note(e: TypedEntry): void {
    const p = e.type === 'policy' ? e : e.type === 'decision' ? e.policy : undefined;
    if (!p || this.named.size > 10_000) return;
    this.named.set(p.chain, 'chain');
    this.named.set(p.policySet, 'policy');
  }

  async read(d: Digest): Promise<Uint8Array | undefined> {
    if (this.cache.has(d)) return this.cache.get(d);
    const bytes = (await this.reader.bytes(documentPath('chain', d))) ?? (await this.reader.bytes(documentPath('policy', d)));
    if (this.cache.size < 256) this.cache.set(d, bytes);
    return bytes;
  }

  async verify(): Promise<string[]> {
    const out: string[] = [];
    for (const [d, kind] of this.named) {
      const bytes = await this.reader.bytes(documentPath(kind, d));
      if (!bytes) out.push(`${documentPath(kind, d)} is missing (named by an entry)`);
      else if (digestBytes(bytes) !== d) out.push(`${documentPath(kind, d)} hashes to ${digestBytes(bytes)}`);
    }
    return out;
  }
}
