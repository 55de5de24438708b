// A real tenant log for execution tests: SQLite in a temp dir, group-commit appender, test keys.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ActivePolicy } from '../../src/decide/index.js';
import { Appender, type NoteSigner } from '../../src/log/index.js';
import { logPortOf } from '../../src/store/log-port.js';
import { openSqliteStore } from '../../src/store/node.js';
import { testKeys } from '../helpers/keys.js';

export const ORIGIN = 'test.vouch/acme';
export const keys = testKeys();

/** `signers`: the test keys unless given (e.g. held back, to see what waits for a signature). */
export function testLog(signers: NoteSigner[] = keys.signers) {
  const store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'vouch-exec-')), 'log.db'));
  const appender = Appender.open({ origin: ORIGIN, storage: store, signers });
  const port = logPortOf(ORIGIN, store, appender);
  return Object.assign(port, { store, appender, close: async () => (await appender.close(), store.close()) });
}

/** No interceptors, uncovered traffic allowed: every well-formed request is allowed, so the tests see vouch's own checks only. */
export const EMPTY_POLICY: ActivePolicy = {
  interceptors: [],
  uncovered: [{ events: ['*'], phase: 'both' }],
  chainDigest: `sha256:${'1'.repeat(64)}`,
  policyDigest: `sha256:${'2'.repeat(64)}`,
  engines: { vouch: 'test' },
  options: {},
};

export const T = '2026-11-30T12:00:00Z';
