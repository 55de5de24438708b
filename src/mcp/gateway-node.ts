// NODE-ONLY: the gateway's runtime: data directory and keys, the policy in force (recorded in the
// tenant's log), the upstream as a child process over stdio or a Streamable HTTP URL, and clean
// shutdown (sessions, then the upstream, then the log batch in flight, then the databases).
import type { IOType } from 'node:child_process';
import { resolve } from 'node:path';
import { StreamableHTTPClientTransport, type Transport as UpstreamTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { canonicalBytes } from '../canonical/index.js';
import { TOOL_USER_ROLE } from '../http/auth.js';
import { InputError, type Issue } from '../errors.js';
import { systemClock } from '../clock.js';
import { parseDriftConfig, type DriftRules } from '../execution/index.js';
import { defaultConfigPath, loadConfigFile } from '../policy/load-config.js';
import { recordActivation, type Wait } from '../decide/index.js';
import { createMemoryStateStores } from '../interceptors/builtin/index.js';
import { logPortOf, type LogPort } from '../store/log-port.js';
import { scheduleEngineRefresh } from '../policy/engine-refresh.js';
import { initDataDir, openDataDir, type DataDir } from '../store/node.js';
import { serverNameOfCommand, serverNameOfUrl, splitCommand } from './gateway-command.js';
import { activateGatewayPolicies, type GatewayPolicies } from './gateway-policy.js';
import { observedLog } from '../observe/observed-log.js';
import { createOtelExporter, parseOtlpUrl } from '../observe/otel.js';
import { startGateway } from './gateway.js';
import type { Gateway } from './gateway-types.js';
import type { DownstreamEra } from './gateway-era.js';
import { ReceiptLocator } from './gateway-evidence.js';
import { DEFAULT_UPSTREAM_ERA, EraMemo, parseUpstreamEra, type UpstreamEra } from './gateway-upstream.js';
import { parseToolsConfig, readPins, ToolPins } from './tool-pins.js';
import { UpstreamStdioTransport } from './upstream-stdio.js';

/** How long the gateway waits for another process to let go of its log (a probe's gateway shutting down). */
export const GATEWAY_LOCK_WAIT_MS = 10_000;

export type UpstreamSpec = { command: string; env?: Record<string, string>; cwd?: string; stderr?: IOType } | { url: string };

export interface GatewayRunOptions {
  data: string;
  /** Chain config; default <data>/vouch.yaml, else the bundled example. */
  config?: string;
  tenant?: string;
  principal?: string;
  /** The principal's roles for policy; default DEFAULT_ROLES (tool-user: the example policy's tools work out of the box). */
  roles?: string[];
  /** The upstream's name for policy and entries; default derived from the command or URL. */
  serverName?: string;
  upstream: UpstreamSpec;
  /** The MCP era spoken upstream (`--upstream-era`, default auto). */
  upstreamEra?: UpstreamEra;
  /** With `auto` over stdio: how long the server/discover probe may wait (gateway-upstream.ts). */
  probeTimeoutMs?: number;
  keyName?: string;
  timeoutMs?: number;
  /** Sign in a worker thread (default true: signing never blocks relaying). */
  thread?: boolean;
  /** What forwarded requests' decisions wait for (gateway-relay.ts): "durable" or "signed" (default). */
  wait?: Wait;
  onLine?: (line: Record<string, unknown>) => void;
  /** OTLP/HTTP collector base URL (`--otlp`): each durable entry exported as a span and a log record. Off when absent. */
  otlp?: string;
  /** Attach the signed receipts to every allowed answer (`--attach-receipts`); else only when a call asks (gateway-evidence.ts). */
  attachReceipts?: boolean;
}

export interface GatewayRuntime {
  serverName: string;
  tenant: string;
  principal: string;
  dataDir: DataDir;
  policies: GatewayPolicies;
  log: LogPort;
  /** Pinned tool definitions of this upstream (from the log's `pin` entries), unless the config turns pinning off. */
  toolPins?: ToolPins;
  drift: DriftRules;
  /** The chain config in force (what the operator edits). */
  configPath: string;
  /** What forwarded requests' decisions wait for (opts.wait; "signed" when not given). */
  wait: Wait;
  /** The MCP era spoken upstream (opts.upstreamEra; auto when not given). */
  upstreamEra: UpstreamEra;
  /** What the first connection found the upstream to speak (later ones connect without probing). */
  eraMemo: EraMemo;
  /** Where answers say their receipts are: a listener sets its base URL (gateway-http.ts), else the CLI command. */
  receipts: ReceiptLocator;
  /** Who the client is, for policy: what discovery-filter judges listings for. */
  viewer(): { principal: string; roles?: string[]; tenant: string; server: string; time: string };
  /** A fresh transport to the upstream (a new child process for a command). */
  connectUpstream(): UpstreamTransport;
  /** One client session: a gateway over `downstream` and a fresh upstream (or the one given). */
  start(downstream?: Transport, opts?: { upstream?: UpstreamTransport; sessionId?: string; caller?: { principal: string; roles: string[] }; era?: DownstreamEra }): Promise<Gateway>;
  sessions(): Gateway[];
  close(): Promise<void>;
}

export const DEFAULT_PRINCIPAL = 'local-operator';
/**
 * The roles of the gateway's own principal when --role names none: `tool-user`, the role the example
 * policy asks of tool calls (a token's roles replace them for its session under --auth).
 */
export const DEFAULT_ROLES: readonly string[] = [TOOL_USER_ROLE];
const SERVER_NAME = /^[A-Za-z0-9._:-]{1,128}$/;
export const DEFAULT_TENANT = 'default';

export function serverNameOf(spec: UpstreamSpec): string {
  return 'url' in spec ? serverNameOfUrl(spec.url) : serverNameOfCommand(splitCommand(spec.command));
}

export function upstreamTransport(spec: UpstreamSpec): UpstreamTransport {
  if ('url' in spec) return new StreamableHTTPClientTransport(new URL(spec.url));
  const [command, ...args] = splitCommand(spec.command);
  // The SDK's default environment (PATH, HOME, ...) keeps the gateway's secrets from the child. Its
  // own process group, stopped whole on close (upstream-process.ts): `npx` is a wrapper of the server.
  return new UpstreamStdioTransport({ command, args, env: { ...getDefaultEnvironment(), ...spec.env }, cwd: spec.cwd, stderr: spec.stderr ?? 'inherit' });
}

export async function openGateway(opts: GatewayRunOptions): Promise<GatewayRuntime> {
  const derived = serverNameOf(opts.upstream); // a bad command or URL fails here, before any key is touched
  const serverName = opts.serverName ?? derived;
  const tenant = opts.tenant ?? DEFAULT_TENANT;
  const principal = opts.principal ?? DEFAULT_PRINCIPAL;
  const roles = opts.roles ?? [...DEFAULT_ROLES];
  const issues: Issue[] = [];
  if (!SERVER_NAME.test(serverName)) issues.push({ path: '/serverName', message: 'letters, digits and . _ : - only, 1 to 128 characters' });
  if (principal.length === 0 || principal.length > 256) issues.push({ path: '/principal', message: 'a non-empty string of at most 256 characters' });
  if (issues.length) throw new InputError('ERR_INPUT', `bad gateway options: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  if (opts.otlp !== undefined) parseOtlpUrl(opts.otlp); // a bad URL fails before any key is touched
  const upstreamEra = opts.upstreamEra === undefined ? DEFAULT_UPSTREAM_ERA : parseUpstreamEra(opts.upstreamEra);
  initDataDir(opts.data); // first run: keys generated; existing keys are kept
  // An MCP client of the 2026 era may start the same gateway command twice: once to ask
  // server/discover (then stops it), then for the session. The first may still be shutting down
  // (stopping its upstream, signing its last checkpoint) when the second opens the log: waited for.
  const dataDir = await openDataDir(opts.data, { thread: opts.thread ?? true, keyName: opts.keyName, monotonic: systemClock.monotonic, lockWaitMs: GATEWAY_LOCK_WAIT_MS });
  const otel = opts.otlp === undefined ? undefined : createOtelExporter({ url: opts.otlp, onExportError: (signal, items, error) => opts.onLine?.({ level: 'warn', msg: 'OTLP export failed', signal, items, error }) });
  let policies: GatewayPolicies | undefined;
  let log: LogPort;
  let drift: DriftRules;
  let toolPins: ToolPins | undefined;
  const configPath = resolve(opts.config ?? defaultConfigPath(opts.data));
  try {
    const resolved = await loadConfigFile(configPath);
    drift = parseDriftConfig(resolved.config.drift);
    policies = await activateGatewayPolicies(resolved, { state: createMemoryStateStores(), remote: 'connect' });
    const t = dataDir.log(tenant);
    log = observedLog(logPortOf(t.origin, t.store, t.appender), tenant, otel && ((e) => otel.observe(e)));
    // Both chains in one `policy` entry (the mirror as `mirror`), so server-request decisions name activated rules too.
    await recordActivation(log, t.store, policies.clientToServer, systemClock.isoNow(), { mirror: policies.serverToClient });
    // The mirror's document, so server-request decisions replay from the log (and go into bundles).
    const mirror = policies.serverToClient;
    await log.putDocument('chain', mirror.chainDigest, canonicalBytes(mirror.resolved.resolved));
    // Pins come from the log's `pin` entries (never a mutable table); config pins are recorded too.
    const tools = parseToolsConfig(resolved.config.tools);
    if (tools.pinning) {
      toolPins = new ToolPins(serverName, log, readPins(t.store), () => systemClock.isoNow());
      await toolPins.configure(tools.pins);
    }
  } catch (e) {
    await policies?.close().catch(() => undefined);
    await dataDir.close();
    await otel?.shutdown();
    throw e;
  }
  const open = new Set<Gateway>();
  const connectUpstream = () => upstreamTransport(opts.upstream);
  const eraMemo = new EraMemo();
  const receipts = new ReceiptLocator(resolve(opts.data), tenant, opts.attachReceipts === true);
  // Start-up over: decisions get an engine instance under V8's own tiering budget (engine-refresh.ts).
  const stopRefresh = scheduleEngineRefresh();
  let closing: Promise<void> | undefined;
  return {
    serverName,
    tenant,
    principal,
    dataDir,
    policies,
    log,
    toolPins,
    drift,
    configPath,
    wait: opts.wait ?? 'signed',
    upstreamEra,
    eraMemo,
    receipts,
    viewer: () => ({ principal, roles, tenant, server: serverName, time: systemClock.isoNow() }),
    connectUpstream,
    async start(downstream, s = {}) {
      if (closing) throw new Error('gateway is shutting down');
      const gateway = await startGateway({
        upstream: s.upstream ?? connectUpstream(),
        upstreamEra,
        probeTimeoutMs: opts.probeTimeoutMs,
        eraMemo: s.upstream ? undefined : eraMemo, // a transport handed in may reach another server
        downstream,
        era: s.era,
        serverName,
        policy: policies!.clientToServer,
        serverPolicy: policies!.serverToClient,
        log,
        tenant,
        // A session opened with a verified token (--listen --auth) is its subject's, with its roles.
        principal: s.caller?.principal ?? principal,
        roles: s.caller ? s.caller.roles : roles,
        clock: systemClock,
        sessionId: s.sessionId,
        drift,
        wait: opts.wait,
        evidence: receipts,
        timeoutMs: opts.timeoutMs,
        onLine: opts.onLine,
        toolPins,
      });
      open.add(gateway);
      void gateway.closed.then(() => open.delete(gateway));
      return gateway;
    },
    sessions: () => [...open],
    close: () =>
      (closing ??= (async () => {
        stopRefresh?.();
        await Promise.allSettled([...open].map((g) => g.close()));
        await dataDir.close(); // finishes queued and in-flight batches first
        await policies!.close();
        await otel?.shutdown(); // exports what is queued (bounded by the exporter's timeout)
      })()),
  };
}
