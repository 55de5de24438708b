-- Sealed history dropped from SQLite (issue 40, src/store/archive-prune.ts, docs/archive.md): once
-- full tiles are in the tile archive and read back against a signed checkpoint, their entry rows and
-- the tree nodes below level 8 (recomputable from the archive's hash tiles) may be deleted, and only
-- those: seq below the watermark, MAX(pruned.below), which only rises (rows are only ever added).
-- State entries read through an index stay (policy, pin, key: migrations 0003-0005): start-up and
-- decisions read them there. Erasure entries have no index (every reader scans entries, which serve
-- pruned ones from the archive), so they are pruned like decisions. The rule reads a row's bytes as
-- JSON; it holds on compact rows too (0008): policy, pin and key entries are never stored compressed
-- (entry-codec.ts refuses a compressed row that inflates to one), so a compressed row, which is not
-- JSON, is never one of them. Everything else stays append-only.
CREATE TABLE pruned (
  below   INTEGER PRIMARY KEY CHECK (below > 0 AND below % 256 = 0),
  -- where the pruned entries are read from: the tenant's archive, relative to the database's folder
  archive TEXT NOT NULL
);
CREATE TRIGGER pruned_rises BEFORE INSERT ON pruned
  WHEN NEW.below <= COALESCE((SELECT MAX(below) FROM pruned), 0)
  BEGIN SELECT RAISE(ABORT, 'append-only: the pruned watermark only rises'); END;
CREATE TRIGGER pruned_no_update BEFORE UPDATE ON pruned BEGIN SELECT RAISE(ABORT, 'append-only: pruned cannot be updated'); END;
CREATE TRIGGER pruned_no_delete BEFORE DELETE ON pruned BEGIN SELECT RAISE(ABORT, 'append-only: pruned cannot be deleted'); END;

DROP TRIGGER entries_no_delete;
CREATE TRIGGER entries_no_delete BEFORE DELETE ON entries
  WHEN OLD.seq >= COALESCE((SELECT MAX(below) FROM pruned), 0)
    OR (json_valid(CAST(OLD.bytes AS TEXT)) AND json_extract(CAST(OLD.bytes AS TEXT), '$.type') IN ('policy', 'pin', 'key'))
  BEGIN SELECT RAISE(ABORT, 'append-only: entries cannot be deleted (only archived ones below the pruned watermark, never state entries)'); END;

DROP TRIGGER nodes_no_delete;
CREATE TRIGGER nodes_no_delete BEFORE DELETE ON nodes
  WHEN OLD.level >= 8 OR ((OLD.idx + 1) << OLD.level) > COALESCE((SELECT MAX(below) FROM pruned), 0)
  BEGIN SELECT RAISE(ABORT, 'append-only: nodes cannot be deleted (only levels below 8 under the pruned watermark)'); END;
