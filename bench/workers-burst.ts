// Where the 503s of a 500-call burst come from under `wrangler dev --local` (issue 38): the same
// burst of concurrent /v1/authorize calls on one key, in turns through wrangler's proxy (the port
// wrangler prints) and straight to workerd's own socket for the Worker, each answer counted by
// status and body. "Your worker restarted mid-request" is the proxy's text; ERR_* bodies are
// vouch's; -1 is a connection that got no HTTP answer at all.
//   node --import tsx bench/workers-burst.ts [CALLS] [ROUNDS]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDev } from './_wrangler.js';

const key = (alg: string, b: number) => JSON.stringify({ v: 1, alg, seed: Buffer.alloc(32, b).toString('base64') });

/** workerd's listening sockets other than the proxy's: the one answering vouch's /healthz is the Worker's own. */
async function directUrl(proxyPort: number): Promise<string | undefined> {
  const listening = execFileSync('ss', ['-ltnpH']).toString();
  const ports = [...listening.matchAll(/127\.0\.0\.1:(\d+)\s.*workerd/g)].map((m) => Number(m[1])).filter((p) => p !== proxyPort);
  for (const p of ports) {
    try {
      const r = await fetch(`http://127.0.0.1:${p}/healthz`, { signal: AbortSignal.timeout(5000) });
      if ((await r.text()).includes('"ok"')) return `http://127.0.0.1:${p}`;
    } catch {
      // not an HTTP socket of the Worker
    }
  }
  return undefined;
}

async function burst(base: string, calls: number, round: number): Promise<Record<string, number>> {
  const by: Record<string, number> = {};
  await Promise.all(
    Array.from({ length: calls }, async (_, i) => {
      let k: string;
      try {
        const r = await fetch(`${base}/v1/authorize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: `r${round}-${i}` } } }) });
        const body = await r.text();
        k = r.status === 200 ? '200' : `${r.status} ${/"code":"(ERR_[A-Z_]+)"/.exec(body)?.[1] ?? body.slice(0, 50)}`;
      } catch (e) {
        k = `-1 ${(e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message}`;
      }
      by[k] = (by[k] ?? 0) + 1;
    }),
  );
  return by;
}

async function main(): Promise<void> {
  const calls = Number(process.argv[2] ?? 500);
  const rounds = Number(process.argv[3] ?? 2);
  const dir = mkdtempSync(join(tmpdir(), 'vouch-workers-burst-'));
  const envFile = join(dir, '.dev.vars');
  writeFileSync(envFile, `VOUCH_SIGNING_KEY='${key('ML-DSA-65', 7)}'\nVOUCH_ED25519_KEY='${key('Ed25519', 8)}'\n`);
  const dev = await startDev({ persist: join(dir, 'state'), envFile, timeoutMs: 300_000 });
  try {
    const direct = await directUrl(dev.port);
    if (!direct) console.log('workerd socket of the Worker not found: proxy only');
    for (let round = 0; round < rounds; round++) {
      for (const [via, base] of [['proxy', dev.url], ...(direct ? [['direct', direct]] : [])] as const) {
        const t0 = Date.now();
        const statuses = await burst(base, calls, round);
        console.log(JSON.stringify({ round, via, calls, ms: Date.now() - t0, statuses }));
      }
    }
  } finally {
    await dev.stop();
  }
}

void main();
