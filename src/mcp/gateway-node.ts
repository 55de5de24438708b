// NODE-ONLY: the gateway's runtime: data directory and keys, the policy in force (recorded in the
// tenant's log), the upstream as a child process over stdio or a Streamable HTTP URL, and clean
// shutdown (sessions, then the upstream, then the log batch in flight, then the databases).
import type { IOType } from 'node:child_process';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { activatePolicy, type Activated } from '../activate.js';
import { systemClock } from '../clock.js';
import { parseDriftConfig, type DriftRules } from '../execution/drift-rules.js';
import { defaultConfigPath, recordActivation } from '../http/node-server.js';
import { createMemoryStateStores } from '../interceptors/builtin/index.js';
import { loadConfigFile } from '../policy/load-config.js';
import { logPortOf, type LogPort } from '../store/log-port.js';
import { initDataDir, openDataDir, type DataDir } from '../store/node.js';
import { serverNameOfCommand, serverNameOfUrl, splitCommand } from './gateway-command.js';
import { startGateway, type Gateway } from './gateway.js';

export type UpstreamSpec = { command: string; env?: Record<string, string>; cwd?: string; stderr?: IOType } | { url: string };

export interface GatewayRunOptions {
  data: string;
  /** Chain config; default <data>/vouch.yaml, else the bundled example. */
  config?: string;
  tenant?: string;
  principal?: string;
  roles?: string[];
  /** The upstream's name for policy and entries; default derived from the command or URL. */
  serverName?: string;
  upstream: UpstreamSpec;
  keyName?: string;
  timeoutMs?: number;
  /** Sign in a worker thread (default true: signing never blocks relaying). */
  thread?: boolean;
  onLine?: (line: Record<string, unknown>) => void;
}

export interface GatewayRuntime {
  serverName: string;
  tenant: string;
  principal: string;
  dataDir: DataDir;
  policy: Activated;
  log: LogPort;
  drift: DriftRules;
  /** A fresh transport to the upstream (a new child process for a command). */
  connectUpstream(): Transport;
  /** One client session: a gateway over `downstream` and a fresh upstream (or the one given). */
  start(downstream: Transport, opts?: { upstream?: Transport; sessionId?: string }): Promise<Gateway>;
  sessions(): Gateway[];
  close(): Promise<void>;
}

export const DEFAULT_PRINCIPAL = 'local-operator';
export const DEFAULT_TENANT = 'default';

export function serverNameOf(spec: UpstreamSpec): string {
  return 'url' in spec ? serverNameOfUrl(spec.url) : serverNameOfCommand(splitCommand(spec.command));
}

export function upstreamTransport(spec: UpstreamSpec): Transport {
  if ('url' in spec) return new StreamableHTTPClientTransport(new URL(spec.url));
  const [command, ...args] = splitCommand(spec.command);
  // The SDK's default environment (PATH, HOME, ...) keeps the gateway's secrets from the child.
  return new StdioClientTransport({ command, args, env: { ...getDefaultEnvironment(), ...spec.env }, cwd: spec.cwd, stderr: spec.stderr ?? 'inherit' });
}

export async function openGateway(opts: GatewayRunOptions): Promise<GatewayRuntime> {
  const serverName = opts.serverName ?? serverNameOf(opts.upstream);
  if ('url' in opts.upstream) new URL(opts.upstream.url); // a bad URL fails here, before any key is touched
  else splitCommand(opts.upstream.command);
  const tenant = opts.tenant ?? DEFAULT_TENANT;
  const principal = opts.principal ?? DEFAULT_PRINCIPAL;
  initDataDir(opts.data); // first run: keys generated; existing keys are kept
  const dataDir = await openDataDir(opts.data, { thread: opts.thread ?? true, keyName: opts.keyName, monotonic: systemClock.monotonic });
  let policy: Activated | undefined;
  let log: LogPort;
  let drift: DriftRules;
  try {
    const resolved = await loadConfigFile(opts.config ?? defaultConfigPath(opts.data));
    drift = parseDriftConfig(resolved.config.drift);
    policy = await activatePolicy(resolved, { state: createMemoryStateStores(), remote: 'connect' });
    const t = dataDir.log(tenant);
    log = logPortOf(t.origin, t.store, t.appender);
    await recordActivation(log, t.store, policy, systemClock.isoNow());
  } catch (e) {
    await policy?.close().catch(() => undefined);
    await dataDir.close();
    throw e;
  }
  const open = new Set<Gateway>();
  const connectUpstream = () => upstreamTransport(opts.upstream);
  let closing: Promise<void> | undefined;
  return {
    serverName,
    tenant,
    principal,
    dataDir,
    policy,
    log,
    drift,
    connectUpstream,
    async start(downstream, s = {}) {
      if (closing) throw new Error('gateway is shutting down');
      const gateway = await startGateway({
        upstream: s.upstream ?? connectUpstream(),
        downstream,
        serverName,
        policy: policy!,
        log,
        tenant,
        principal,
        roles: opts.roles,
        clock: systemClock,
        sessionId: s.sessionId,
        drift,
        timeoutMs: opts.timeoutMs,
        onLine: opts.onLine,
      });
      open.add(gateway);
      void gateway.closed.then(() => open.delete(gateway));
      return gateway;
    },
    sessions: () => [...open],
    close: () =>
      (closing ??= (async () => {
        await Promise.allSettled([...open].map((g) => g.close()));
        await dataDir.close(); // finishes queued and in-flight batches first
        await policy!.close();
      })()),
  };
}
