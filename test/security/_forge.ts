// The attacker of issue 15 item 1, as artifacts: a receipt whose checkpoint lost its ML-DSA-65
// line, and a brand-new entry (a forged allow) signed with the Ed25519 key alone, which the
// attacker read from the data directory (keys/ed25519.key) and uses with vouch's own code.
import Database from 'better-sqlite3';
import { fromBase64 } from '../../src/canonical/index.js';
import { createEd25519Signer, createMldsa44Signer, createMldsaSigner, MLDSA44_SIGNATURE_BYTES, MLDSA65_SIGNATURE_BYTES } from '../../src/crypto/index.js';
import { readKeyFile } from '../../src/crypto/key-file.js';
import {
  appendLeaf, committedHeads, compactRangeAt, decodeEntry, nextHeads, encodeEntry, hashLeaf, inclusionProof, noteSignerFor, parseNote, rangeRoot, signCheckpoint, type Batch, type LogStorage,
} from '../../src/log/index.js';
import { buildReceipt, type Receipt } from '../../src/receipt/index.js';
import { keyPaths, readKeySeeds } from '../../src/store/node.js';

/** The note without its post-quantum lines (ML-DSA-65, and the timestamped ML-DSA-44 one): text, blank line, the Ed25519 line. */
export function stripPostQuantum(note: string): string {
  const split = note.lastIndexOf('\n\n');
  const lines = note.slice(split + 2, -1).split('\n');
  const pq = [4 + MLDSA65_SIGNATURE_BYTES, 4 + 8 + MLDSA44_SIGNATURE_BYTES];
  const kept = lines.filter((l) => !pq.includes(fromBase64(l.slice(l.lastIndexOf(' ') + 1)).length));
  if (kept.length === lines.length || kept.length === 0) throw new Error('expected ML-DSA lines beside an Ed25519 line');
  return `${note.slice(0, split + 2)}${kept.join('\n')}\n`;
}

export function strippedReceipt(r: Receipt): Receipt {
  return { ...r, checkpoint: stripPostQuantum(r.checkpoint) };
}

/** A receipt of entry `seq` against the newest stored checkpoint. */
export function receiptOf(store: LogStorage, seq: number): Receipt {
  const cp = store.latestCheckpoint()!;
  const e = store.entry(seq)!;
  return buildReceipt({ bytes: e.bytes, leaf: e.leaf, seq, proof: inclusionProof(seq, cp.size, store), checkpoint: cp.note });
}

/**
 * The next entry of the log, made up by someone holding only the Ed25519 key file: the batch a
 * store would write (entry, the tree nodes it completes, an Ed25519-only checkpoint) and the
 * receipt for it. Key name and origin are read off the log's own newest checkpoint.
 */
export async function forgeNextEntry(dataDir: string, store: LogStorage, body: Record<string, unknown>): Promise<{ batch: Batch; receipt: Receipt; note: string }> {
  const ed = readKeyFile(keyPaths(dataDir).ed25519);
  const latest = store.latestCheckpoint()!;
  const name = parseNote(latest.note).signatures[0].name;
  const size = store.size();
  const last = store.entry(size - 1)!;
  const origin = decodeEntry(last.bytes).log;
  const full = { type: 'decision', time: new Date().toISOString(), ...body };
  const bytes = encodeEntry(origin, size, last.leaf, full as never, nextHeads(committedHeads(store), full.type, size));
  const leaf = hashLeaf(bytes);
  const step = appendLeaf(compactRangeAt(size, store), leaf);
  const root = rangeRoot(step.range);
  const note = await signCheckpoint({ origin, size: size + 1, root, extensions: [] }, [noteSignerFor(name, createEd25519Signer(ed.seed))]);
  const batch: Batch = { entries: [{ seq: size, bytes, leaf }], nodes: step.created, checkpoint: { size: size + 1, root, note } };
  // The inclusion proof against the forged tree: the stored nodes plus the ones this leaf completes.
  const reader = { node: (level: number, index: number) => step.created.find((n) => n.level === level && n.index === index)?.hash ?? store.node(level, index) };
  const receipt = buildReceipt({ bytes, leaf, seq: size, proof: inclusionProof(size, size + 1, reader), checkpoint: note });
  return { batch, receipt, note };
}

/** Someone with write access to the database file replaces the newest checkpoint's note (the triggers are theirs to drop). */
export function overwriteNewestNote(dbPath: string, note: (old: string) => string): void {
  const db = new Database(dbPath);
  try {
    const row = db.prepare('SELECT size, note FROM checkpoints ORDER BY size DESC LIMIT 1').get() as { size: number; note: string };
    db.exec('DROP TRIGGER checkpoints_no_update');
    db.prepare('UPDATE checkpoints SET note = ? WHERE size = ?').run(note(row.note), row.size);
    db.exec("CREATE TRIGGER checkpoints_no_update BEFORE UPDATE ON checkpoints BEGIN SELECT RAISE(ABORT, 'append-only: checkpoints cannot be updated'); END;");
  } finally {
    db.close();
  }
}

/**
 * What a writer holding both of the data directory's keys could sign, the appender's checks aside
 * (an older vouch, say): `body` as the next entry of `store`, with the heads the log commits to,
 * its payloads stored, and a checkpoint signed by the ML-DSA-65 and Ed25519 keys. Returns what an
 * appender's `append` returns, so `decide()` can write through it.
 */
export async function signNextWithKeys(dataDir: string, store: LogStorage & { putPayload(d: string, b: Uint8Array): void }, body: Record<string, unknown>, attachments: { digest: string; bytes: Uint8Array }[] = []) {
  const seeds = readKeySeeds(dataDir);
  const latest = store.latestCheckpoint()!;
  const name = parseNote(latest.note).signatures[0].name;
  const size = store.size();
  const last = store.entry(size - 1)!;
  const origin = decodeEntry(last.bytes).log;
  const heads = nextHeads(committedHeads(store), String(body.type), size);
  const bytes = encodeEntry(origin, size, last.leaf, body as never, heads);
  const leaf = hashLeaf(bytes);
  const step = appendLeaf(compactRangeAt(size, store), leaf);
  const root = rangeRoot(step.range);
  const signers = [
    noteSignerFor(name, createMldsaSigner(seeds.mldsaSeed)),
    ...(seeds.ed25519Seed ? [noteSignerFor(name, createEd25519Signer(seeds.ed25519Seed))] : []),
    ...(seeds.mldsa44Seed ? [noteSignerFor(name, createMldsa44Signer(seeds.mldsa44Seed))] : []),
  ];
  const note = await signCheckpoint({ origin, size: size + 1, root, extensions: [] }, signers);
  store.appendBatch({ entries: [{ seq: size, bytes, leaf }], nodes: step.created, checkpoint: { size: size + 1, root, note } });
  for (const a of attachments) store.putPayload(a.digest, a.bytes);
  return { seq: size, bytes, leaf, size: size + 1, proof: inclusionProof(size, size + 1, store), checkpoint: note };
}
