// Bench helper, run in a fresh process per measurement so peak memory is this task's alone:
//   node --import tsx bench/_audit-child.ts verify|verify-replay|replay|export <bundle dir> <data dir>
// Prints one JSON line: {ms, cpuMs, entries, ok, maxRssMb, heapPeakMb}.
import { rmSync } from 'node:fs';
import { exportBundle, replayLog, verifyBundle } from '../src/audit/index.js';
import { createDirSink, nodeHashLeaf, openBundleDir, storeExportSource, storeReplaySource } from '../src/audit/node-bundle.js';
import { toJwks } from '../src/crypto/index.js';
import { loadKeys, logPath, openSqliteStore } from '../src/store/node.js';

const [mode, bundle, data] = process.argv.slice(2);
let heapPeak = 0;
const sampler = setInterval(() => {
  heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
}, 25);

const t0 = performance.now();
const cpu0 = process.cpuUsage();
let entries = 0;
let ok = true;
if (mode === 'verify' || mode === 'verify-replay') {
  // As an auditor runs it (`vouch verify-bundle --key`): with the log's keys, under its origin,
  // pinned; the bundle's own keys alone are never enough for ok.
  const store = openSqliteStore(logPath(data, 'default'), { readonly: true });
  const origin = store.meta('origin')!;
  store.close();
  const trusted = { vkeys: loadKeys(data, origin).verifiers, jwks: [] };
  const r = await verifyBundle(openBundleDir(bundle), { trusted, replay: mode === 'verify-replay', hashLeaf: nodeHashLeaf });
  entries = r.entries;
  ok = r.ok && (mode === 'verify' || r.replay!.match === r.replay!.decisions);
  // Why not, for whoever reads the bench's failure (stdout's last line stays the measurement).
  if (!ok) process.stderr.write(`${JSON.stringify(r.findings.slice(0, 5))}\n`);
} else if (mode === 'replay') {
  const store = openSqliteStore(logPath(data, 'default'), { readonly: true });
  const r = await replayLog(storeReplaySource(store));
  entries = r.entries;
  ok = r.match === r.decisions;
  store.close();
} else if (mode === 'export') {
  rmSync(bundle, { recursive: true, force: true });
  const store = openSqliteStore(logPath(data, 'default'), { readonly: true });
  // A log signs under its origin (issue 18), not the data directory's key name: the bundle's keys
  // must carry that name, or no signature in it verifies.
  const origin = store.meta('origin')!;
  const { keys } = loadKeys(data, origin);
  const m = await exportBundle(storeExportSource(store, origin), createDirSink(bundle), {
    payloads: true,
    keys: { vkeys: keys.map((k) => k.vkey), jwks: toJwks(keys.map((k) => ({ alg: k.alg, publicKey: k.publicKey, kid: k.keyId }))) },
    tool: { name: 'vouch', version: 'bench' },
  });
  entries = m.counts.entries;
  store.close();
}
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
clearInterval(sampler);
heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
process.stdout.write(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, entries, ok, maxRssMb: process.resourceUsage().maxRSS / 1024, heapPeakMb: heapPeak / 2 ** 20 }) + '\n');
