// The SQL migrations, bundled as text (wrangler.toml rule: migrations/*.sql as Text), in the same
// order Node reads them from disk. test/workers/migrations.test.ts checks this list against the
// migrations/ directory, so a new migration cannot be left out of the Worker.
import m0001 from '../../migrations/0001_log.sql';
import m0002 from '../../migrations/0002_payloads.sql';
import m0003 from '../../migrations/0003_rules_by_entry.sql';
import m0004 from '../../migrations/0004_pin_entries.sql';
import m0005 from '../../migrations/0005_key_entries.sql';
import m0006 from '../../migrations/0006_commit_tag.sql';
import m0007 from '../../migrations/0007_payload_retention.sql';
import m0008 from '../../migrations/0008_entry_codec.sql';
import m0009 from '../../migrations/0009_pruned_entries.sql';
import { orderMigrations, type Migration } from '../store/migrations.js';

export const WORKER_MIGRATION_FILES: readonly string[] = ['0001_log.sql', '0002_payloads.sql', '0003_rules_by_entry.sql', '0004_pin_entries.sql', '0005_key_entries.sql', '0006_commit_tag.sql', '0007_payload_retention.sql', '0008_entry_codec.sql', '0009_pruned_entries.sql'];

export const WORKER_MIGRATIONS: Migration[] = orderMigrations([
  { file: '0001_log.sql', sql: m0001 },
  { file: '0002_payloads.sql', sql: m0002 },
  { file: '0003_rules_by_entry.sql', sql: m0003 },
  { file: '0004_pin_entries.sql', sql: m0004 },
  { file: '0005_key_entries.sql', sql: m0005 },
  { file: '0006_commit_tag.sql', sql: m0006 },
  { file: '0007_payload_retention.sql', sql: m0007 },
  { file: '0008_entry_codec.sql', sql: m0008 },
  { file: '0009_pruned_entries.sql', sql: m0009 },
]);
