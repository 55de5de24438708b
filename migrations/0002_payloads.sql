-- Payloads by digest, in their own table so they can be erased on request (the erasure is itself
-- an entry) while every digest, proof and signature stays valid. Documents (chain configs,
-- policy sets) by digest, kept forever: replay needs them.
CREATE TABLE payloads (
  digest TEXT PRIMARY KEY,
  bytes  BLOB NOT NULL
);

CREATE TABLE documents (
  digest TEXT PRIMARY KEY,
  kind   TEXT NOT NULL CHECK (kind IN ('chain', 'policy')),
  bytes  BLOB NOT NULL
);

CREATE TRIGGER documents_no_update BEFORE UPDATE ON documents BEGIN SELECT RAISE(ABORT, 'append-only: documents cannot be updated'); END;
CREATE TRIGGER documents_no_delete BEFORE DELETE ON documents BEGIN SELECT RAISE(ABORT, 'append-only: documents cannot be deleted'); END;
