// Where the 503s of a 500-call burst come from under `wrangler dev --local` (issue 38): the same
// burst of concurrent /v1/authorize calls on one key, in turns through wrangler's proxy (the port
// wrangler prints) and straight to workerd's own socket for the Worker, each answer counted by
// status and body. "Your worker restarted mid-request" is the proxy's text; ERR_* bodies are
// vouch's; a connection closed with no HTTP answer at all is counted apart.
//   npm run bench -- --only workers-burst [--quick]
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchContext, Result } from './_types.js';
import { startDev } from './_wrangler.js';

/** Calls a burst sends at once, and how many bursts each way (in turns: proxy, direct, proxy, ...). */
export interface BurstSizes {
  calls: number;
  rounds: number;
}

/** CI's smoke (test/workers/bench-workers-burst.test.ts): one burst of 20 each way, every line there. */
export const TOY: BurstSizes = { calls: 20, rounds: 1 };

/** How one answer is counted, and the layer that gave it (named in each line's note). */
const KINDS = {
  ok: 'answered 200 (a decision, allow or deny)',
  restarted503: "wrangler's proxy: 503 \"Your worker restarted mid-request\" (ProxyWorker text, not vouch's)",
  vouch503: "vouch: 503 with an ERR_* code (e.g. ERR_STORE_BEHIND, the log object could not sign in time: fail closed)",
  otherError: 'any other non-200 answer (the note lists them)',
  noAnswer: 'below HTTP: the connection closed or failed with no answer at all',
} as const;
type Kind = keyof typeof KINDS;

const key = (alg: string, b: number) => JSON.stringify({ v: 1, alg, seed: Buffer.alloc(32, b).toString('base64') });

/** The process group of a pid (Linux /proc), to tell this run's workerd from another wrangler's on a shared machine. */
function pgid(pid: number): number | undefined {
  try {
    // /proc/PID/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces, so read after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return undefined;
  }
}

/** workerd's listening sockets in wrangler's process group other than the proxy's: the one answering vouch's /healthz is the Worker's own. */
async function directUrl(proxyPort: number, group: number): Promise<string | undefined> {
  let listening: string;
  try {
    listening = execFileSync('ss', ['-ltnpH']).toString();
  } catch {
    return undefined; // no ss (iproute2): proxy only
  }
  const ports = [...listening.matchAll(/127\.0\.0\.1:(\d+)\s.*"workerd",pid=(\d+)/g)]
    .filter((m) => pgid(Number(m[2])) === group)
    .map((m) => Number(m[1]))
    .filter((p) => p !== proxyPort);
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

/** One burst: `calls` concurrent decisions, each answer counted by kind; `others` keeps what the other errors were. */
async function burst(base: string, calls: number, round: number, counts: Record<Kind, number>, others: Record<string, number>): Promise<void> {
  await Promise.all(
    Array.from({ length: calls }, async (_, i) => {
      let kind: Kind;
      try {
        const r = await fetch(`${base}/v1/authorize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: `r${round}-${i}` } } }) });
        const body = await r.text();
        const code = /"code":"(ERR_[A-Z_]+)"/.exec(body)?.[1];
        if (r.status === 200) kind = 'ok';
        else if (r.status === 503 && body.includes('restarted mid-request')) kind = 'restarted503';
        else if (r.status === 503 && code) kind = 'vouch503';
        else {
          kind = 'otherError';
          const k = `${r.status} ${code ?? body.slice(0, 50)}`;
          others[k] = (others[k] ?? 0) + 1;
        }
      } catch {
        kind = 'noAnswer';
      }
      counts[kind]++;
    }),
  );
}

export async function run(ctx: BenchContext, sizes?: BurstSizes): Promise<Result[]> {
  const { calls, rounds } = sizes ?? (ctx.quick ? { calls: 500, rounds: 1 } : { calls: 500, rounds: 2 });
  const dir = ctx.tempDir('workers-burst');
  const envFile = join(dir, '.dev.vars');
  writeFileSync(envFile, `VOUCH_SIGNING_KEY='${key('ML-DSA-65', 7)}'\nVOUCH_ED25519_KEY='${key('Ed25519', 8)}'\n`, { mode: 0o600 });
  const dev = await startDev({ persist: join(dir, 'state'), envFile, timeoutMs: 300_000 });
  const zero = (): Record<Kind, number> => ({ ok: 0, restarted503: 0, vouch503: 0, otherError: 0, noAnswer: 0 });
  const by = { proxy: zero(), direct: zero() };
  const others = { proxy: {} as Record<string, number>, direct: {} as Record<string, number> };
  let direct: string | undefined;
  try {
    direct = await directUrl(dev.port, dev.pid);
    if (!direct) ctx.log("workers-burst: workerd's own socket for the Worker not found: proxy only");
    for (let round = 0; round < rounds; round++) {
      const ways: ['proxy' | 'direct', string][] = [['proxy', dev.url], ...(direct ? [['direct', direct] as ['direct', string]] : [])];
      for (const [via, base] of ways) {
        const before = { ...by[via] };
        const t0 = Date.now();
        await burst(base, calls, round, by[via], others[via]);
        const got = Object.fromEntries((Object.keys(KINDS) as Kind[]).map((k) => [k, by[via][k] - before[k]]));
        ctx.log(`workers-burst round ${round} ${via}: ${calls} calls in ${Date.now() - t0} ms ${JSON.stringify(got)}`);
      }
    }
  } finally {
    await dev.stop();
  }
  const results: Result[] = [];
  for (const via of ['proxy', 'direct'] as const) {
    const where = via === 'proxy' ? "through wrangler's proxy" : "straight to workerd's socket for the Worker (no proxy)";
    for (const kind of Object.keys(KINDS) as Kind[]) {
      const listed = kind === 'otherError' && Object.keys(others[via]).length > 0 ? `: ${JSON.stringify(others[via])}` : '';
      const line: Result = { name: `${via}.${kind}`, unit: 'answers', value: by[via][kind], note: `${KINDS[kind]}${listed}; ${where}, ${rounds} burst(s) of ${calls} at once` };
      results.push(via === 'direct' && !direct ? { ...line, value: 0, absent: true, note: `workerd's own socket not found (no ss, or not Linux); ${line.note}` } : line);
    }
  }
  return results;
}
