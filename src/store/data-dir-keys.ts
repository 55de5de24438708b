// The data directory's keys over time (NODE-ONLY, issue 18): the signer sets it holds (the key
// files, and during an unfinished rotation keys/next/), each tenant log's checked key history
// (tenant-keys.ts), the published key set with every key's sizes per log, and rotation and
// revocation, each a signed `key` entry in every log it concerns.
import { toHex } from '../canonical/index.js';
import { createVerifier, jwksKid, noteKeyId, toJwks, type Jwks, type PublicKeyEntry, type SignatureAlg, type Signer, type Verifier } from '../crypto/index.js';
import { createLazyMldsa44Signer, createMldsa44Signer } from '../crypto/index.js';
import { createNodeEd25519Signer, createNodeEd25519Verifier, createSignerFromSeed } from '../crypto/node.js';
import { ConfigError } from '../errors.js';
import { commitKeyOf, formatVkey, noteSignerFor, revokeEntryBody, rotateEntryBody, sameKey, type Appended, type EntryBody, type HistoryKey, type KeyWindow, type NoteSigner, type PublicKey } from '../log/index.js';
import { prepareNextKeys, retireKeyFiles, rotationPending, type KeySeeds } from './key-rotation.js';
import type { LogStore } from './port.js';
import { tenantKeys, type TenantKeys } from './tenant-keys.js';

export interface SignerSet extends KeySeeds {
  signers: Signer[];
}

/** What rotation needs of a tenant log: its appender rotates (in process, or in the log thread). */
export interface RotatableLog {
  tenant: string;
  origin: string;
  store: LogStore;
  ready?: Promise<void>;
  rotate(body: EntryBody, next: SignerSet, name: string): Promise<Appended>;
  append(body: EntryBody): Promise<Appended>;
}

export interface RotationResult {
  logs: { tenant: string; seq: number; size: number }[];
  retired: string[];
  keys: { alg: string; publicKey: string }[];
}

const same = (a: PublicKey[], b: PublicKey[]) => a.length === b.length && a.every((k) => b.some((x) => sameKey(k, x)));

/** The open check's verifiers (tenant-keys.ts OpenVerifier): Ed25519 by node:crypto, with ed25519.ts's strict encodings. */
const openVerifier = (alg: SignatureAlg, publicKey: Uint8Array): Verifier => (alg === 'Ed25519' ? createNodeEd25519Verifier(publicKey) : createVerifier(alg, publicKey));

async function signerSet(seeds: KeySeeds, thread: boolean): Promise<SignerSet> {
  // This thread signs seldom (results, key entries): its signing thread starts on the first
  // signature, not at start-up. The key files' public key is checked against the thread's own.
  const publicKey = seeds.keys.find((k) => k.alg === 'ML-DSA-65')?.publicKey;
  const signers: Signer[] = [await createSignerFromSeed(seeds.mldsaSeed, { thread, publicKey, lazy: true })];
  if (seeds.ed25519Seed) signers.push(createNodeEd25519Signer(seeds.ed25519Seed));
  // ML-DSA-44 too: expanded at its first signature here, its public key the key files' (derived by the log thread).
  const mldsa44Key = seeds.keys.find((k) => k.alg === 'ML-DSA-44')?.publicKey;
  if (seeds.mldsa44Seed) signers.push(mldsa44Key ? createLazyMldsa44Signer(seeds.mldsa44Seed, mldsa44Key) : createMldsa44Signer(seeds.mldsa44Seed));
  return { ...seeds, signers };
}

export class DataDirKeys {
  readonly tenants = new Map<string, TenantKeys>();
  private constructor(
    private readonly dir: string,
    /** The name logs made before issue 18 sign under, and the JWKS kid's name. */
    readonly legacyName: string,
    private sets: SignerSet[],
    private readonly thread: boolean,
    private readonly resuming: boolean,
  ) {}

  /** `resume`: a rotation stopped half way may be finished (its incoming keys are loaded too). */
  static async open(dir: string, legacyName: string, files: KeySeeds, opts: { thread: boolean; resume?: boolean }): Promise<DataDirKeys> {
    const pending = rotationPending(dir);
    if (pending && !opts.resume) throw new ConfigError('ERR_CONFIG', `a key rotation was interrupted (${dir}/keys/next holds the incoming keys): run \`vouch keys rotate --data ${dir}\` to finish it`);
    const sets = [await signerSet(files, opts.thread)];
    if (pending) sets.push(await signerSet(prepareNextKeys(dir, { ed25519: files.ed25519Seed !== undefined }), opts.thread));
    return new DataDirKeys(dir, legacyName, sets, opts.thread, pending);
  }

  get current(): SignerSet {
    return this.sets[0];
  }

  /** Every loaded key set: the current one and, while a rotation is finished, the incoming one. */
  seedSets(): readonly SignerSet[] {
    return this.sets;
  }

  /** A tenant log's checked history and the signers of its current keys; throws when it cannot be trusted. */
  forTenant(tenant: string, store: LogStore, origin: string): { keys: TenantKeys; set: SignerSet; signers: NoteSigner[] } {
    // Key entries after the newest checkpoint count only while a rotation is finished (its own entry may be there).
    const keys = tenantKeys(store, origin, this.current.keys, this.legacyName, { requireFiles: !this.resuming, tail: this.resuming, commitKeys: this.sets.map((k) => commitKeyOf(k.mldsaSeed)), openVerifier });
    const set = this.sets.find((s) => same(s.keys, keys.history.current.keys));
    if (!set) throw new ConfigError('ERR_CONFIG', `log of tenant ${tenant}: no key file holds the keys its history says sign now`);
    this.tenants.set(tenant, keys);
    return { keys, set, signers: set.signers.map((s) => noteSignerFor(keys.name, s)) };
  }

  /**
   * Every key any open log's history names (and the key files), each with the sizes it signs per
   * log origin; with `tenant`, only that log's history (a tenant's bundle names no other tenant:
   * `others` are then that tenant's, if unopened).
   */
  publicKeys(others: TenantKeys[] = [], tenant?: string): PublicKeyEntry[] {
    const out: (PublicKeyEntry & { logs: Record<string, KeyWindow> })[] = [];
    const add = (k: PublicKey, origin?: string, w?: KeyWindow) => {
      let e = out.find((x) => sameKey(x, k));
      if (!e) out.push((e = { alg: k.alg, publicKey: k.publicKey, kid: jwksKid(this.legacyName, k.alg, k.publicKey), logs: {} }));
      if (origin && w) e.logs[origin] = w;
    };
    for (const k of this.current.keys) add(k);
    for (const t of this.histories(others, tenant)) for (const k of t.history.keys) add(k, t.origin, k.window);
    return out;
  }

  private histories(others: TenantKeys[], tenant?: string): TenantKeys[] {
    return [...[...this.tenants].filter(([t]) => tenant === undefined || t === tenant).map(([, k]) => k), ...others];
  }

  jwks(others: TenantKeys[] = [], tenant?: string): Jwks {
    return toJwks(this.publicKeys(others, tenant));
  }

  /** vkeys of every (name, key) of the open logs' histories (or one log's), and the files under the legacy name; windows as `#` lines. */
  vkeys(others: TenantKeys[] = [], tenant?: string): string[] {
    const lines = new Set<string>(this.current.keys.map((k) => formatVkey(this.legacyName, k.alg, k.publicKey)));
    const notes: string[] = [];
    for (const t of this.histories(others, tenant)) {
      for (const k of t.history.keys) {
        lines.add(formatVkey(k.name, k.alg, k.publicKey));
        notes.push(windowComment(t.origin, k));
      }
    }
    return [...lines, ...notes];
  }

  /**
   * Rotate every tenant log to new keys (or the incoming keys of an unfinished rotation): each log
   * gets a `key` entry its current keys sign (the handover), then signs with the new keys; the
   * outgoing key files are kept in keys/history/.
   */
  async rotate(logs: RotatableLog[], time: string, by?: string): Promise<RotationResult> {
    const outgoing = this.current.keys;
    const next = this.sets.find((s) => !same(s.keys, outgoing)) ?? (await signerSet(prepareNextKeys(this.dir, { ed25519: this.current.ed25519Seed !== undefined }), this.thread));
    if (!this.sets.includes(next)) this.sets.push(next);
    const done: RotationResult['logs'] = [];
    for (const log of logs) {
      await log.ready;
      const t = this.tenants.get(log.tenant);
      if (!t) throw new ConfigError('ERR_CONFIG', `log of tenant ${log.tenant} is not open`);
      if (same(t.history.current.keys, next.keys)) continue; // rotated before a restart
      const body = rotateEntryBody(time, t.history.current, { name: log.origin, keys: next.keys }, by);
      const a = await log.rotate(body, next, log.origin);
      done.push({ tenant: log.tenant, seq: a.seq, size: a.size });
    }
    const retired = retireKeyFiles(this.dir, outgoing, time);
    this.sets = [next, ...this.sets.filter((s) => s !== next)];
    for (const log of logs) this.tenants.set(log.tenant, tenantKeys(log.store, log.origin, next.keys, this.legacyName));
    return { logs: done, retired, keys: next.keys.map((k) => ({ alg: k.alg, publicKey: Buffer.from(k.publicKey).toString('base64') })) };
  }

  /** `vouch keys revoke KEYID --after SIZE` for one log: KEYID is any id of the key (under the log's names or the JWKS kid). */
  async revoke(log: RotatableLog, keyId: string, after: number, time: string, by?: string): Promise<{ key: HistoryKey; seq: number }> {
    await log.ready;
    const t = this.tenants.get(log.tenant);
    if (!t) throw new ConfigError('ERR_CONFIG', `log of tenant ${log.tenant} is not open`);
    const ids = (k: HistoryKey) => [k.keyId, toHex(noteKeyId(this.legacyName, k.alg, k.publicKey)), toHex(noteKeyId(log.origin, k.alg, k.publicKey))];
    const key = t.history.keys.find((k) => ids(k).includes(keyId.toLowerCase()));
    if (!key) throw new ConfigError('ERR_CONFIG', `no key ${keyId} in the history of ${log.origin} (see \`vouch keys list\`)`);
    if (t.history.current.keys.some((k) => sameKey(k, key))) throw new ConfigError('ERR_CONFIG', `key ${keyId} still signs ${log.origin}: run \`vouch keys rotate\` first, then revoke it`);
    if (!Number.isSafeInteger(after) || after < 0) throw new ConfigError('ERR_CONFIG', '--after must be a tree size (a non-negative integer)');
    const a = await log.append(revokeEntryBody(time, key, after, by));
    const now = tenantKeys(log.store, log.origin, this.current.keys, this.legacyName);
    this.tenants.set(log.tenant, now);
    // The key as the history now has it: its window carries revokedAfter.
    return { key: now.history.keys.find((k) => k.name === key.name && sameKey(k, key)) ?? key, seq: a.seq };
  }

  async close(): Promise<void> {
    for (const s of this.sets) for (const x of s.signers) await x.close?.();
  }
}

function windowComment(origin: string, k: HistoryKey): string {
  const w = k.window;
  return `# key ${k.name}+${k.keyId} log ${origin} from ${w.from} to ${w.to ?? '-'} revoked-after ${w.revokedAfter ?? '-'}`;
}

