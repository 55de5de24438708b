-- The log of one tenant: entries (exact bytes as hashed), the Merkle tree's complete nodes,
-- signed checkpoints. Append-only in the store itself: triggers refuse UPDATE and DELETE.
CREATE TABLE entries (
  seq   INTEGER PRIMARY KEY,
  bytes BLOB    NOT NULL,
  leaf  BLOB    NOT NULL CHECK (length(leaf) = 32)
);

-- Complete subtrees: 2^level leaves starting at leaf idx * 2^level (level 0 = leaf hashes).
CREATE TABLE nodes (
  level INTEGER NOT NULL,
  idx   INTEGER NOT NULL,
  hash  BLOB    NOT NULL CHECK (length(hash) = 32),
  PRIMARY KEY (level, idx)
) WITHOUT ROWID;

CREATE TABLE checkpoints (
  size INTEGER PRIMARY KEY,
  root BLOB NOT NULL CHECK (length(root) = 32),
  note TEXT NOT NULL
);

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TRIGGER entries_no_update BEFORE UPDATE ON entries BEGIN SELECT RAISE(ABORT, 'append-only: entries cannot be updated'); END;
CREATE TRIGGER entries_no_delete BEFORE DELETE ON entries BEGIN SELECT RAISE(ABORT, 'append-only: entries cannot be deleted'); END;
CREATE TRIGGER nodes_no_update BEFORE UPDATE ON nodes BEGIN SELECT RAISE(ABORT, 'append-only: nodes cannot be updated'); END;
CREATE TRIGGER nodes_no_delete BEFORE DELETE ON nodes BEGIN SELECT RAISE(ABORT, 'append-only: nodes cannot be deleted'); END;
CREATE TRIGGER checkpoints_no_update BEFORE UPDATE ON checkpoints BEGIN SELECT RAISE(ABORT, 'append-only: checkpoints cannot be updated'); END;
CREATE TRIGGER checkpoints_no_delete BEFORE DELETE ON checkpoints BEGIN SELECT RAISE(ABORT, 'append-only: checkpoints cannot be deleted'); END;
