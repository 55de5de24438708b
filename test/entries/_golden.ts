// Writes one log with every entry type vouch writes (decisions allowed, denied, rejected, with
// extras; executions; policy activations and an unpin; an erasure; a pin) from fixed inputs, and
// returns the entries' exact bytes. fixtures/entries/golden-v1.jsonl holds what the writers
// produced before entries were typed; golden.test.ts compares: entry bytes must not change.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { digestJson } from '../../src/canonical/index.js';
import { activatePolicy, decide, recordActivation, recordUnpin } from '../../src/decide/index.js';
import { recordExecution } from '../../src/execution/index.js';
import { eraseStoredPayload } from '../../src/audit/erase.js';
import { pinEntryBody } from '../../src/entries/index.js';
import { createMemoryStateStores } from '../../src/interceptors/builtin/index.js';
import { Appender } from '../../src/log/index.js';
import { loadConfigFile } from '../../src/policy/load-config.js';
import { logPortOf } from '../../src/store/log-port.js';
import { openSqliteStore } from '../../src/store/node.js';
import { testKeys } from '../helpers/keys.js';

const T = '2026-11-30T12:00:00Z';
const ORIGIN = 'golden.vouch/acme';
// The example config as the golden log was written under it (the example itself moves on).
const CONFIG = new URL('./fixtures/golden-config.yaml', import.meta.url).pathname;

export async function goldenEntries(): Promise<string[]> {
  const store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'vouch-golden-')), 'log.db'));
  const appender = Appender.open({ origin: ORIGIN, storage: store, signers: testKeys().signers });
  const port = logPortOf(ORIGIN, store, appender);
  const policy = await activatePolicy(await loadConfigFile(CONFIG), { state: createMemoryStateStores(), remote: 'offline' });
  try {
    await recordActivation(port, store, policy, T, { by: 'start-up' });
    const ctx = { time: T, tenant: 'acme', principal: 'alice', roles: ['user'], sessionId: 's1', traceId: '0af7651916cd43dd8448eb211c80319c', server: 'files' };
    const call = (name: string, args: Record<string, unknown>) => ({ event: 'tools/call', phase: 'request' as const, payload: { name, arguments: args }, context: ctx });
    const extra = { caller: 'alice', timeoutMs: 500, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    const a = await decide({ ...call('read_file', { path: '/tmp/allowed/x' }), extra }, { policy, log: port });
    await decide({ ...call('delete_everything', { really: true }), extra: { caller: 'alice' } }, { policy, log: port });
    await decide({ event: 'tools/list', phase: 'request', payload: {}, context: { time: T, tenant: 'acme', principal: 'bob' }, only: [] }, { policy, log: port });
    await decide({ event: 'tools/call', phase: 'response', payload: { content: [{ type: 'text', text: 'ok' }] }, context: ctx, extra: { caller: 'alice', authorization: a.appended.seq, executed: { digest: digestJson({ path: '/tmp/allowed/x' }) } } }, { policy, log: port });
    await decide({ event: 'tools/call', phase: 'request', payload: { name: 'x', arguments: { n: Number.NaN } }, context: ctx, extra: { flow: 'client-to-server' } }, { policy, log: port });
    await recordExecution({ log: port, authorization: a.appended.seq, executed: { name: 'read_file', arguments: { path: '/tmp/allowed/y' } }, time: T, tenant: 'acme', principal: 'alice', caller: 'alice', session: 's1' });
    await recordExecution({ log: port, authorization: null, executed: { name: 'rm' }, time: T, tenant: 'acme', principal: 'alice', event: 'tools/call' });
    await recordActivation(port, store, policy, T, { pinned: true, by: 'cli:root' });
    await recordUnpin(port, store, T, 'cli:root');
    await eraseStoredPayload(port, a.inputDigest!, { time: T, reason: 'GDPR request 7', by: 'alice' });
    await port.append(pinEntryBody({ server: 'files', tool: 'read_file', action: 'first-seen', digest: digestJson({ name: 'read_file' }) }, T));
    await port.append(pinEntryBody({ server: 'files', tool: 'read_file', action: 'changed', digest: digestJson({ name: 'read_file', v: 2 }), pinned: digestJson({ name: 'read_file' }), session: 's1' }, T));
    const out: string[] = [];
    for await (const e of port.entries(0, await port.size())) out.push(new TextDecoder().decode(e.bytes));
    return out;
  } finally {
    await policy.close();
    await appender.close();
    store.close();
  }
}
