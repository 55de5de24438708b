// A peer, side by side (issue 17): the Agent Passport System (npm agent-passport-system 6.0.1,
// pinned) creating execution attestations in memory, against vouch's in-process decide-and-append
// (the example chain with Cedar, a real SQLite log, synchronous=FULL), sequentially, in the same
// run, as a ratio. Not like for like, and the lines say so: vouch signs ML-DSA-65 (post-quantum)
// checkpoints over a durable, fsync'd Merkle log; the peer signs Ed25519 in memory, stores nothing.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { createExecutionAttestation, generateKeyPair } from 'agent-passport-system';
import type { DecisionRequest } from '../src/decide/index.js';
import { shipped } from './_shipped.js';
import { percentile, round } from './_stats.js';
import type { BenchContext, Result } from './_types.js';

const EXAMPLE = fileURLToPath(new URL('../fixtures/config/', import.meta.url));
const NOTE = 'vouch: ML-DSA-65 signed checkpoint over a durable (fsync) SQLite Merkle log, example chain with Cedar; peer: Ed25519 in memory, nothing stored';

/** The example chain without its rate limit (the loop would trip it). */
function benchConfig(dir: string): string {
  const config = parse(readFileSync(join(EXAMPLE, 'vouch.example.yaml'), 'utf8'));
  config.interceptors = config.interceptors.filter((i: { use?: string }) => i.use !== 'rate-limit');
  config.policies = { files: config.policies.files.map((f: string) => join(EXAMPLE, f)), schema: join(EXAMPLE, config.policies.schema) };
  const path = join(dir, 'peers-bench.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
}

async function timed(n: number, one: (i: number) => Promise<unknown> | unknown): Promise<{ rate: number; p50: number }> {
  const ms: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await one(i);
    ms.push(performance.now() - t);
  }
  return { rate: (n / (performance.now() - t0)) * 1000, p50: percentile(ms, 50) };
}

/** Sequential operations per side, and warm-up rounds. */
export interface PeersSizes {
  n: number;
  warm: number;
}

/** CI's smoke (test/bench/peers.test.ts). */
export const TOY: PeersSizes = { n: 5, warm: 3 };

export async function run(ctx: BenchContext, sizes?: PeersSizes): Promise<Result[]> {
  // The compiled modules, as `vouch` runs them (bench/_shipped.ts).
  const { createSignerFromSeed } = await shipped<typeof import('../src/crypto/node.js')>('crypto/node.js');
  const { activatePolicy, decide } = await shipped<typeof import('../src/decide/index.js')>('decide/index.js');
  const { createMemoryStateStores } = await shipped<typeof import('../src/interceptors/builtin/index.js')>('interceptors/builtin/index.js');
  const { Appender, noteSignerFor } = await shipped<typeof import('../src/log/index.js')>('log/index.js');
  const { loadConfigFile } = await shipped<typeof import('../src/policy/load-config.js')>('policy/load-config.js');
  const { openSqliteStore } = await shipped<typeof import('../src/store/node.js')>('store/node.js');
  const n = sizes?.n ?? (ctx.quick ? 100 : 500);
  const dir = ctx.tempDir('peers');
  const policy = await activatePolicy(await loadConfigFile(benchConfig(dir)), { state: createMemoryStateStores(), remote: 'offline' });
  const store = openSqliteStore(join(dir, 'log.db'));
  const mldsa = await createSignerFromSeed(new Uint8Array(32).fill(9), { thread: true });
  const appender = Appender.open({ origin: 'bench.vouch/peers', storage: store, signers: [noteSignerFor('bench.vouch', mldsa)] });
  const req = (i: number, wait?: 'durable'): DecisionRequest => ({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: `hello ${i}` } }, context: { time: new Date().toISOString(), tenant: 'default', principal: 'bench', sessionId: 's1' }, wait });
  const keys = generateKeyPair();
  const attest = (i: number) =>
    createExecutionAttestation(
      { agentId: 'agent-1', attestorId: 'gateway-1', attestorType: 'gateway', toolName: 'echo', actualParameters: { text: `hello ${i}` }, actualResult: { ok: true }, intentParameters: { text: `hello ${i}` }, policyReceiptId: `r${i}`, executionFrameId: `f${i}`, executionStartedAt: new Date().toISOString(), executionCompletedAt: new Date().toISOString() },
      keys.privateKey,
    );
  try {
    for (let i = 0; i < (sizes?.warm ?? 30); i++) {
      attest(i);
      await decide(req(i), { policy, log: appender }); // warm-up: JIT, Cedar, SQLite pages, the signing worker
    }
    const peer = await timed(n, attest);
    const signed = await timed(n, (i) => decide(req(i), { policy, log: appender }));
    const durable = await timed(n, (i) => decide(req(i, 'durable'), { policy, log: appender }));
    ctx.log(`peers: agent-passport-system ${round(peer.rate)}/s (p50 ${round(peer.p50)} ms); vouch signed ${round(signed.rate)}/s (p50 ${round(signed.p50)} ms), durable ${round(durable.rate)}/s (p50 ${round(durable.p50)} ms)`);
    return [
      { name: 'aps.attestation', unit: 'ops/s', value: round(peer.rate), note: 'agent-passport-system 6.0.1 createExecutionAttestation, Ed25519, in memory, sequential' },
      { name: 'vouch.decide.signed', unit: 'decisions/s', value: round(signed.rate), baseline: round(peer.rate), ratio: round(signed.rate / peer.rate), note: `sequential, wait "signed"; ${NOTE}` },
      { name: 'vouch.decide.durable', unit: 'decisions/s', value: round(durable.rate), baseline: round(peer.rate), ratio: round(durable.rate / peer.rate), note: `sequential, wait "durable" (signed checkpoint follows); ${NOTE}` },
    ];
  } finally {
    await appender.close();
    await mldsa.close?.();
    store.close();
    await policy.close();
  }
}
