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
  const r = await verifyBundle(openBundleDir(bundle), { replay: mode === 'verify-replay', hashLeaf: nodeHashLeaf });
  entries = r.entries;
  ok = r.ok && (mode === 'verify' || r.replay!.match === r.replay!.decisions);
} else if (mode === 'replay') {
  const store = openSqliteStore(logPath(data, 'default'), { readonly: true });
  const r = await replayLog(storeReplaySource(store));
  entries = r.entries;
  ok = r.match === r.decisions;
  store.close();
} else if (mode === 'export') {
  rmSync(bundle, { recursive: true, force: true });
  const store = openSqliteStore(logPath(data, 'default'), { readonly: true });
  const { keys } = loadKeys(data);
  const m = await exportBundle(storeExportSource(store, store.meta('origin')!), createDirSink(bundle), {
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
