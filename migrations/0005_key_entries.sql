-- A log's key history (src/log/key-history.ts) comes from `key` entries only: this partial index
-- over the signed entries lets a log read its keys at open in O(key entries), not O(log).
CREATE INDEX entries_key ON entries (seq)
  WHERE instr(bytes, CAST('"type":"key"' AS BLOB)) > 0
    AND json_valid(CAST(bytes AS TEXT))
    AND json_extract(CAST(bytes AS TEXT), '$.type') = 'key';
