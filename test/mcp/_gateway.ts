// Gateway test kit: a temporary data dir with the fixture config, the gateway in-process in front
// of a real upstream child process (server-everything or server-filesystem, over stdio), and an
// SDK Client connected to it through an in-memory pair. Receipts are checked with the dir's JWKS.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, type CreateMessageRequest, type ElicitRequest, type ElicitResult, type Root } from '@modelcontextprotocol/sdk/types.js';
import { replayLog } from '../../src/audit/index.js';
import { decodeEntry, type Entry } from '../../src/log/index.js';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import type { Gateway } from '../../src/mcp/gateway-types.js';
import type { UpstreamEra } from '../../src/mcp/gateway-upstream.js';
import { parseTrust, verifiersFor, verifyReceipt, type ReceiptReport } from '../../src/receipt/index.js';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
export const ROOT = here('../../');
export const VOUCH_BIN = here('../../bin/vouch.js');
export const EVERYTHING = here('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = here('../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const everythingCmd = () => `node '${EVERYTHING}' stdio`;
export const filesystemCmd = (dir: string) => `node '${FILESYSTEM}' '${dir}'`;

export interface Workspace {
  dir: string;
  data: string;
  config: string;
  /** The folder the policy allows file tools in (`__ALLOWED_DIR__`). */
  allowed: string;
}

/** A temp folder with the fixture config and its policy, `__ALLOWED_DIR__` replaced. */
export function makeWorkspace(prefix = 'vouch-gw-'): Workspace {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const allowed = join(dir, 'files', 'allowed');
  mkdirSync(allowed, { recursive: true });
  const policy = readFileSync(here('fixtures/gateway-policy.cedar'), 'utf8').replaceAll('__ALLOWED_DIR__', allowed);
  writeFileSync(join(dir, 'gateway-policy.cedar'), policy);
  writeFileSync(join(dir, 'gateway.yaml'), readFileSync(here('fixtures/gateway.yaml'), 'utf8'));
  return { dir, data: join(dir, 'data'), config: join(dir, 'gateway.yaml'), allowed };
}

export interface Calls {
  sampling: CreateMessageRequest['params'][];
  elicitation: ElicitRequest['params'][];
  /** How many times the client was asked for its roots (only with `roots` given to makeClient). */
  rootsAsked: number;
  /** What the user answers a form (default: decline); a test may replace it. */
  answer: (params: ElicitRequest['params']) => ElicitResult;
  /** The roots the client exposes (with `roots` given to makeClient); a test may replace them. */
  roots: Root[];
}

/** An SDK (v1, MCP 2025) client that can sample and elicit (and, given `roots`, list roots), recording every request it is asked. */
export function makeClient(roots?: Root[]): { client: Client; calls: Calls } {
  const calls: Calls = { sampling: [], elicitation: [], rootsAsked: 0, answer: () => ({ action: 'decline' }), roots: roots ?? [] };
  const client = new Client({ name: 'gateway-test-client', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: { form: {} }, ...(roots && { roots: {} }) } });
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    calls.sampling.push(req.params);
    return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'sampled by the test client' } };
  });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    calls.elicitation.push(req.params);
    return calls.answer(req.params);
  });
  if (roots) {
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      calls.rootsAsked++;
      return { roots: calls.roots };
    });
  }
  return { client, calls };
}

export interface Kit {
  ws: Workspace;
  rt: GatewayRuntime;
  gateway: Gateway;
  upstream: StdioClientTransport;
  client: Client;
  calls: Calls;
  lines: Record<string, unknown>[];
  close(): Promise<void>;
}

export interface KitOptions {
  serverName?: string;
  upstreamEra?: UpstreamEra;
  probeTimeoutMs?: number;
  /** The roots the test client exposes (it declares the roots capability only when given). */
  roots?: Root[];
}

/** The gateway in-process over `upstreamCmd` (a child over stdio) and an in-memory client. */
export async function startKit(upstreamCmd: (ws: Workspace) => string, ws = makeWorkspace(), o: KitOptions = {}): Promise<Kit> {
  const lines: Record<string, unknown>[] = [];
  const rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: upstreamCmd(ws), stderr: 'ignore' }, serverName: o.serverName, upstreamEra: o.upstreamEra, probeTimeoutMs: o.probeTimeoutMs, thread: false, onLine: (l) => lines.push(l) });
  const upstream = rt.connectUpstream() as StdioClientTransport;
  const [down, up] = InMemoryTransport.createLinkedPair();
  let gateway: Gateway;
  try {
    gateway = await rt.start(up, { upstream });
  } catch (e) {
    await rt.close();
    throw e;
  }
  const { client, calls } = makeClient(o.roots);
  await client.connect(down);
  let closed = false;
  return {
    ws,
    rt,
    gateway,
    upstream,
    client,
    calls,
    lines,
    async close() {
      if (closed) return; // a test may close early (then afterAll closes again)
      closed = true;
      await client.close().catch(() => undefined);
      try {
        await expectReplaysClean(rt);
      } finally {
        await rt.close();
      }
    },
  };
}

/**
 * Replays every decision of the runtime's log from the log alone (issue 35 item 3): every
 * gateway test ends here (Kit.close, or its afterAll), so any built-in whose output is not a
 * pure function of what the entry records shows up as a mismatch in the test that made it.
 */
export async function expectReplaysClean(rt: GatewayRuntime): Promise<void> {
  const log = rt.log;
  const report = await replayLog({
    entries: (from, to) => log.entries(from, to),
    size: () => log.size(),
    payload: (d) => log.payload(d),
    document: async (d) => (await log.document(d))?.bytes,
  });
  const bad = report.results.filter((r) => r.status === 'mismatch' || (r.status === 'unreplayable' && r.reason !== 'payload erased' && r.reason !== 'input rejected'));
  if (bad.length > 0 || report.findings.length > 0) throw new Error(`the gateway log does not replay clean: ${JSON.stringify({ bad, findings: report.findings })}`);
}

/** A runtime's close for an afterAll: its log replays clean first (expectReplaysClean), then it closes either way. */
export async function closeReplayed(rt: GatewayRuntime | undefined): Promise<void> {
  if (!rt) return;
  try {
    await expectReplaysClean(rt);
  } finally {
    await rt.close();
  }
}

/** Offline verification with the data dir's public keys (its JWKS, as a verifier would get it). */
export function verifyWithJwks(rt: GatewayRuntime, receipt: unknown): ReceiptReport {
  const trust = parseTrust(JSON.stringify(rt.dataDir.jwks()));
  const checkpoint = (receipt as { checkpoint?: string })?.checkpoint ?? '';
  return verifyReceipt(receipt, { verifiers: verifiersFor(trust, checkpoint), origin: rt.log.origin });
}

/** Every entry of the runtime's tenant log, decoded. */
export async function entriesOf(rt: GatewayRuntime): Promise<Entry[]> {
  const out: Entry[] = [];
  for await (const e of rt.log.entries(0, await rt.log.size())) out.push(decodeEntry(e.bytes));
  return out;
}

/** The execution entry that names decision `seq` as its authorization (it may land just after the answer). */
export async function executionOf(rt: GatewayRuntime, seq: unknown): Promise<Entry> {
  for (let i = 0; i < 200; i++) {
    const found = (await entriesOf(rt)).find((e) => e.type === 'execution' && e.authorization === seq);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no execution entry for decision ${String(seq)}`);
}

export async function payloadOf(rt: GatewayRuntime, digest: unknown): Promise<unknown> {
  const bytes = await rt.log.payload(digest as never);
  return bytes ? JSON.parse(new TextDecoder().decode(bytes)) : undefined;
}

/** `node bin/vouch.js ARGS`: exit code and output. */
export function vouch(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [VOUCH_BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The text of a tool result's own content blocks, joined: an enricher's note addressed to the model
 * (`annotations.audience: ["assistant"]`, the example config's provenance enricher) is vouch's, not
 * the tool's, and is left out (test/mcp/gateway-enrich.test.ts checks those notes).
 */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string; annotations?: { audience?: string[] } }[] }).content ?? [];
  return content
    .filter((c) => !(c.annotations?.audience?.length === 1 && c.annotations.audience[0] === 'assistant'))
    .map((c) => c.text ?? '')
    .join('\n');
}
