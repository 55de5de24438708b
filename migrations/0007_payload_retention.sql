-- Payload retention (issue 40, src/audit/retention.ts): for each payload the highest seq of a commit
-- that stored it (or stored it again), so payloads no entry has named since a cut-off are found by
-- this index, never by a scan of the log. It is an upper bound on the newest entry naming the
-- payload, so retention errs towards keeping. Rows stored before this migration have NULL: they
-- were last named before the log's size at the time, kept in meta as payload_seq_floor.
ALTER TABLE payloads ADD COLUMN last_seq INTEGER;
CREATE INDEX payloads_last_seq ON payloads (last_seq);
INSERT INTO meta (key, value) SELECT 'payload_seq_floor', CAST(COALESCE(MAX(seq) + 1, 0) AS TEXT) FROM entries;
