-- The newest group commit's tag (src/log/commit-tag.ts): HMAC-SHA256 over (origin, size, root)
-- under a key derived from the signing seed, written in the commit's own transaction. At start-up
-- entries committed after the newest checkpoint are signed only if they reproduce this tag, so a
-- row written by anyone without the key makes the service refuse to sign, not sign a forgery.
CREATE TABLE commit_tag (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  size INTEGER NOT NULL CHECK (size > 0),
  tag BLOB NOT NULL CHECK (length(tag) = 32)
);
