-- Compact entry rows (issue 40, docs/storage.md, src/store/entry-codec.ts): each row names how its
-- bytes are stored. codec 0 is the signed bytes as they are (every row written before this
-- migration); codec n > 0 is raw DEFLATE with preset dictionary n, which is kept in this file so
-- any reader of it can inflate. A dictionary is written once, with the digest of its bytes.
ALTER TABLE entries ADD COLUMN codec INTEGER NOT NULL DEFAULT 0;

CREATE TABLE entry_dictionaries (
  id       INTEGER PRIMARY KEY CHECK (id > 0),
  from_seq INTEGER NOT NULL,
  digest   BLOB    NOT NULL CHECK (length(digest) = 32),
  bytes    BLOB    NOT NULL
);

CREATE TRIGGER entry_dictionaries_no_update BEFORE UPDATE ON entry_dictionaries BEGIN SELECT RAISE(ABORT, 'append-only: entry dictionaries cannot be updated'); END;
CREATE TRIGGER entry_dictionaries_no_delete BEFORE DELETE ON entry_dictionaries BEGIN SELECT RAISE(ABORT, 'append-only: entry dictionaries cannot be deleted'); END;
