-- Nothing changes the rules without an entry. meta holds only facts set once (the log's origin):
-- the policy in force is the newest `policy` entry, found through the partial index below, which
-- indexes the signed entries themselves (so it can only be slow if dropped, never wrong).
CREATE TRIGGER meta_no_update BEFORE UPDATE ON meta BEGIN SELECT RAISE(ABORT, 'append-only: meta cannot be updated'); END;
CREATE TRIGGER meta_no_delete BEFORE DELETE ON meta BEGIN SELECT RAISE(ABORT, 'append-only: meta cannot be deleted'); END;

CREATE INDEX entries_policy ON entries (seq)
  WHERE instr(bytes, CAST('"type":"policy"' AS BLOB)) > 0
    AND json_valid(CAST(bytes AS TEXT))
    AND json_extract(CAST(bytes AS TEXT), '$.type') = 'policy';
