// Attack helpers (branch `attack`): a file-level attacker (no key) that appends one forged entry
// and a checkpoint ROW whose note carries the genuine newest note's signature lines over a new
// text (size, root). Nothing verifies those lines outside the appender's open check.
import Database from 'better-sqlite3';
import { canonicalBytes, toBase64, toHex, utf8 } from '../../src/canonical/index.js';
import { appendLeaf, emptyRange, hashLeaf, rangeRoot, type CompactRange } from '../../src/log/index.js';

const STATE = new Set(['policy', 'pin', 'key', 'erasure']);

/**
 * Append one non-state entry (a copy of the newest decision-like entry) carrying `heads` as given,
 * its nodes, and (with `checkpoint`) a checkpoint row of the new size whose note text names the new
 * root but whose signature lines are copied from the newest genuine note (they do not verify).
 */
export function appendWithHeads(path: string, heads: (h: Record<string, [number, number]>) => Record<string, [number, number]>, opts: { checkpoint?: boolean } = {}): { seq: number; size: number } {
  const db = new Database(path);
  for (const t of ['entries_no_update', 'entries_no_delete', 'nodes_no_update', 'nodes_no_delete', 'checkpoints_no_update', 'checkpoints_no_delete']) db.exec(`DROP TRIGGER IF EXISTS ${t}`);
  const rows = db.prepare('SELECT seq, bytes, leaf FROM entries ORDER BY seq').all() as { seq: number; bytes: Buffer; leaf: Buffer }[];
  let range: CompactRange = emptyRange();
  for (const r of rows) range = appendLeaf(range, new Uint8Array(r.leaf)).range;
  const last = rows[rows.length - 1];
  const template = [...rows].reverse().find((r) => !STATE.has(JSON.parse(utf8.decode(r.bytes)).type))!;
  const e = JSON.parse(utf8.decode(template.bytes));
  const lastHeads = JSON.parse(utf8.decode(last.bytes)).heads ?? {};
  e.seq = last.seq + 1;
  e.prev = toHex(new Uint8Array(last.leaf));
  e.heads = heads(structuredClone(lastHeads));
  const bytes = canonicalBytes(e);
  const leaf = hashLeaf(bytes);
  const step = appendLeaf(range, leaf);
  const size = e.seq + 1;
  db.transaction(() => {
    db.prepare('INSERT INTO entries (seq, bytes, leaf) VALUES (?, ?, ?)').run(e.seq, bytes, leaf);
    for (const n of step.created) db.prepare('INSERT OR REPLACE INTO nodes (level, idx, hash) VALUES (?, ?, ?)').run(n.level, n.index, n.hash);
    if (opts.checkpoint) {
      const root = rangeRoot(step.range);
      const genuine = db.prepare('SELECT note FROM checkpoints ORDER BY size DESC LIMIT 1').pluck().get() as string;
      const split = genuine.lastIndexOf('\n\n');
      const [origin] = genuine.split('\n');
      const note = `${origin}\n${size}\n${toBase64(root)}\n\n${genuine.slice(split + 2)}`;
      db.prepare('INSERT INTO checkpoints (size, root, note) VALUES (?, ?, ?)').run(size, root, note);
    }
  })();
  db.close();
  return { seq: e.seq, size };
}
