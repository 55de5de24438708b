// Bench helper: a tenant log of N signed entries written straight through the Appender in large
// batches (a signature per 5,000 entries, not per decision), mostly real decision entries: each
// of 64 request templates is decided once by the real chain, then entries repeat them with their
// own trace id. Every entry replays to `match`. Not timed by the benchmark.
import { activatePolicy, decisionRecord, type DecisionRequest, recordActivation } from '../src/decide/index.js';
import { canonicalBytes, digestBytes } from '../src/canonical/index.js';
import { createMemoryStateStores } from '../src/interceptors/builtin/index.js';
import { executeChain } from '../src/interceptors/chain.js';
import type { Json } from '../src/interceptors/types.js';
import type { EntryBody } from '../src/log/index.js';
import { resolveConfigDocument } from '../src/policy/index.js';
import { logPortOf } from '../src/store/log-port.js';
import { initDataDir, openDataDir } from '../src/store/node.js';

export const BENCH_CONFIG = {
  version: 1,
  policies: {
    inline: {
      policies: [
        'permit(principal, action == Action::"tools/call", resource) when { resource in [Tool::"read_file", Tool::"echo", Tool::"search"] };',
        'forbid(principal, action == Action::"tools/call", resource) when { context.arguments has path && context.arguments.path like "*..*" };',
      ].join('\n'),
    },
  },
  interceptors: [
    { name: 'pii', use: 'pii-redactor', config: { kinds: ['email', 'phone'] }, priorityHint: { request: -50000, response: 50000 } },
    { name: 'authz', use: 'cedar-policy' },
  ],
};

const TIME = '2026-11-30T12:00:00.000Z';

function template(k: number): DecisionRequest {
  const tools = ['read_file', 'echo', 'search', 'delete_file'];
  const name = tools[k % tools.length];
  const args = k % 5 === 0 ? { path: `/srv/../etc/passwd${k}` } : k % 3 === 0 ? { text: `mail a${k}@example.com` } : { path: `/srv/reports/q${k % 4}/file-${k}.csv` };
  return { event: 'tools/call', phase: 'request', payload: { name, arguments: args }, context: { time: TIME, tenant: 'default', principal: `user-${k % 7}`, roles: ['enforce'], server: 'filesystem', sessionId: `sess-${k % 5}` } };
}

/** Returns the data directory; the log holds 1 policy entry + n decisions. */
export async function generateBenchLog(dir: string, n: number): Promise<void> {
  initDataDir(dir);
  const dd = await openDataDir(dir, { thread: false, maxBatch: 5000 });
  const policy = await activatePolicy(resolveConfigDocument(BENCH_CONFIG as Json), { state: createMemoryStateStores(), remote: 'offline' });
  try {
    const t = dd.log('default');
    await recordActivation(logPortOf(t.origin, t.store, t.appender), t.store, policy, TIME);
    const templates: { body: EntryBody; input: Uint8Array; intent?: Uint8Array }[] = [];
    for (let k = 0; k < 64; k++) {
      const req = template(k);
      const run = await executeChain(policy.interceptors, req, req.context, policy.options);
      const input = canonicalBytes(req.payload);
      const record = decisionRecord(run.result) as Record<string, Json>;
      const intent = record.effect === 'allow' ? canonicalBytes(run.result.finalPayload) : undefined;
      const c = req.context;
      const body = {
        type: 'decision', time: c.time, tenant: c.tenant, principal: c.principal, roles: c.roles, event: req.event, phase: req.phase,
        direction: 'sending', session: c.sessionId, server: c.server,
        policy: { chain: policy.chainDigest, policySet: policy.policyDigest, engines: policy.engines },
        input: { digest: digestBytes(input) }, intent: intent ? { digest: digestBytes(intent) } : null, decision: record, state: run.state,
      } as EntryBody;
      templates.push({ body, input, intent });
    }
    const CHUNK = 20_000;
    for (let i = 0; i < n; i += CHUNK) {
      const pending: Promise<unknown>[] = [];
      for (let j = i; j < Math.min(n, i + CHUNK); j++) {
        const t0 = templates[j % templates.length];
        const attachments = j < templates.length ? [{ digest: digestBytes(t0.input), bytes: t0.input }, ...(t0.intent ? [{ digest: digestBytes(t0.intent), bytes: t0.intent }] : [])] : [];
        pending.push(t.appender.append({ ...t0.body, trace: `trace-${j}` }, attachments));
      }
      await Promise.all(pending);
    }
  } finally {
    await dd.close();
    await policy.close();
  }
}
