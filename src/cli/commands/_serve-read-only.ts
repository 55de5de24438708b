// vouch serve --read-only (issue 37): attach to a data directory a gateway or `vouch serve` holds,
// serving the audit routes and the console from it, writing nothing there (http/node-read-only.ts).
import { startReadOnlyServer } from '../../http/node-read-only.js';
import type { AuthConfig } from '../../http/auth.js';
import { EXIT, UsageError, type Io } from '../io.js';
import type { diagnostics } from '../log-lines.js';

/** Options that configure writing (decisions, checkpoints, witnessing): meaningless on a reader, refused so nobody thinks they apply. */
export const WRITER_OPTIONS = ['config', 'callers', 'require-caller-signature', 'checkpoint-idle', 'otlp', 'witnesses'] as const;

export async function serveReadOnly(opts: { data: string; host: string; port?: number; auth?: AuthConfig; allowOrigins?: string[]; json?: boolean; given: string[] }, log: ReturnType<typeof diagnostics>, io: Io): Promise<number> {
  const writerOnly = WRITER_OPTIONS.filter((o) => opts.given.some((a) => a === `--${o}` || a.startsWith(`--${o}=`)));
  if (writerOnly.length) throw new UsageError(`--${writerOnly[0]} configures the writer; --read-only only reads (give it to the gateway or \`vouch serve\` that holds ${opts.data})`);
  const server = await startReadOnlyServer({ data: opts.data, host: opts.host, port: opts.port, auth: opts.auth, allowOrigins: opts.allowOrigins, logLine: log.line });
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  if (opts.json) io.out(JSON.stringify({ msg: 'vouch ready', url: server.url, keyId: server.keyId, readOnly: true, data: opts.data, tenants: server.tenants }));
  else {
    io.out(`vouch ready on ${server.url}  key ${server.keyId} (JWKS kid)  (read-only: attached to ${opts.data}, writing nothing there)`);
    io.out(`  console  ${server.url}/audit/`);
    io.out(`  logs     ${server.tenants.length ? server.tenants.join(', ') : 'none yet'}: entries appear as the writer's signed checkpoints cover them`);
    io.out('  writes   refused (409 ERR_READ_ONLY): decisions, policy, keys and erasure go to the writer');
  }
  if (!opts.auth) log.text('warn', 'WARNING: no --auth given: development mode, no tokens checked, serving loopback only. Do not expose this port.');
  await stopped;
  await server.close();
  return EXIT.ok;
}
