-- Pinned tool definitions (src/mcp/tool-pins.ts) come from `pin` entries only: this partial index
-- over the signed entries lets a gateway read them at start in O(pin entries), not O(log).
CREATE INDEX entries_pin ON entries (seq)
  WHERE instr(bytes, CAST('"type":"pin"' AS BLOB)) > 0
    AND json_valid(CAST(bytes AS TEXT))
    AND json_extract(CAST(bytes AS TEXT), '$.type') = 'pin';
