// Spawn the real `vouch serve` (its own process group, so SIGKILL takes the whole service) and
// drive it like clients do: decisions over loopback, every receipt checked against the JWKS.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { parseTrust, verifiersFor, verifyReceipt } from '../../src/receipt/index.js';

export const BIN = new URL('../../bin/vouch.js', import.meta.url).pathname;

export interface Service {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

export async function spawnService(data: string, extra: string[] = []): Promise<Service> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data', data, ...extra], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no ready line; stderr: ${stderr}`)), 30_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /vouch ready on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  return { child, url, exited };
}

export function runCli(args: string[]): { status: number | null; json: any; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = r.stdout;
  }
  return { status: r.status, json, stderr: r.stderr };
}

export type Kind = 'echo' | 'denied' | 'pii';
export interface Answer {
  kind: Kind;
  via: 'rest' | 'mcp';
  seq: number;
  /** The signed receipt (wait "signed", the default). */
  receipt?: { entry: string; checkpoint: string; index: number };
  /** The committed entry (wait "durable"): its receipt is fetched later. */
  durable?: { entry: string; leafHash: string; index: number };
}

const payloadOf = (kind: Kind, i: number) =>
  kind === 'echo' ? { name: 'echo', arguments: { text: `hello ${i}` } } : kind === 'denied' ? { name: 'dangerous_tool', arguments: { i } } : { name: 'echo', arguments: { text: `call me at 415 555 ${String(1000 + (i % 9000)).padStart(4, '0')}` } };

/** One decision; throws when the connection fails (no answer), returns the receipt when answered. */
/** With `durable`, every other pair of decisions (both ways in) asks for wait "durable": the answer holds the entry, no receipt. */
export async function decide(url: string, i: number, opts: { durable?: boolean } = {}): Promise<Answer> {
  const kind: Kind = (['echo', 'denied', 'pii'] as const)[i % 3];
  const via = i % 2 === 0 ? 'rest' : 'mcp';
  const durable = opts.durable === true && Math.floor(i / 2) % 2 === 1;
  const params = { event: 'tools/call', phase: 'request', payload: payloadOf(kind, i), ...(durable && { _meta: { 'io.vouch/wait': 'durable' } }) };
  const body = via === 'rest' ? params : { jsonrpc: '2.0', id: i, method: 'interceptor/executeChain', params };
  const res = await fetch(`${url}${via === 'rest' ? '/v1/authorize' : '/mcp'}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
  const json = await res.json();
  if (durable) {
    const d = via === 'rest' ? json.durable : json.result._meta['io.vouch/durable'];
    if (!d || json.receipt || json.result?._meta['io.vouch/receipt']) throw new Error(`not a durable answer: ${JSON.stringify(json).slice(0, 300)}`);
    return { kind, via, seq: d.index, durable: d };
  }
  const receipt = via === 'rest' ? json.receipt : json.result._meta['io.vouch/receipt'];
  if (!receipt) throw new Error(`no receipt: ${JSON.stringify(json).slice(0, 300)}`);
  return { kind, via, seq: receipt.index, receipt };
}

export async function trustOf(url: string) {
  return parseTrust(await (await fetch(`${url}/.well-known/vouch/keys`)).text());
}

/** The failed checks of a receipt (empty when it verifies). */
export function failedChecks(trust: ReturnType<typeof parseTrust>, receipt: Answer['receipt']): string[] {
  if (!receipt) return ['no receipt'];
  const report = verifyReceipt(receipt, { verifiers: verifiersFor(trust, receipt.checkpoint) });
  return report.ok ? [] : report.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`);
}

/** Run `total` decisions over `clients` concurrent loops; `onAnswer` sees each answer as it comes. */
export async function drive(total: number, clients: number, send: (i: number) => Promise<Answer>, onAnswer: (i: number, a: Answer) => void = () => {}): Promise<Answer[]> {
  const answers: Answer[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < total) {
        const i = next++;
        const a = await send(i);
        answers[i] = a;
        onAnswer(i, a);
      }
    }),
  );
  return answers;
}
