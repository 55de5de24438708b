// Go's golang.org/x/mod/sumdb/note and tlog as a checker of vouch's tiles (test/interop/tlogcheck):
// build it once (offline, GOPATH mode over Debian's sources) and run it on a JSON job.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = fileURLToPath(new URL('./tlogcheck/', import.meta.url));
const GOPATH = '/usr/share/gocode';
const INSTALL = 'install Go and its x/mod sources: `apt-get install -y golang-go golang-golang-x-mod-dev` (.ci/run does)';

/** Builds tlogcheck once per run, in a temp dir, offline (GOPATH mode over Debian's sources). */
export function buildChecker(): string {
  const version = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (version.error || version.status !== 0) throw new Error(`the Go interop check needs \`go\` on PATH, and it is missing: ${INSTALL}`);
  if (!existsSync(join(GOPATH, 'src/golang.org/x/mod/sumdb/tlog'))) throw new Error(`no golang.org/x/mod under ${GOPATH}: ${INSTALL}`);
  const dir = mkdtempSync(join(tmpdir(), 'vouch-tlogcheck-'));
  for (const f of readdirSync(SOURCE).filter((n) => n.endsWith('.go'))) copyFileSync(join(SOURCE, f), join(dir, f));
  const env = { ...process.env, GO111MODULE: 'off', GOPATH, GOCACHE: join(dir, 'cache'), GOFLAGS: '' };
  const built = spawnSync('go', ['build', '-o', 'tlogcheck', '.'], { cwd: dir, env, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`go build of test/interop/tlogcheck failed: ${built.stderr}${built.error ?? ''}`);
  return join(dir, 'tlogcheck');
}

/** What tlogcheck is asked to check: the tiles under `prefix`, these checkpoints and vouch's proofs. */
export interface GoJob {
  prefix: string;
  vkeys: string[];
  checkpoints: string[];
  inclusion: any[];
  consistency: any[];
}

export interface GoReport {
  ok: boolean;
  verifiers: string[];
  unsupportedKeys: string[];
  checks: string[];
  substitutions: string[];
  unverifiedSignatures: string[];
  failures: string[] | null;
  treeSize: number;
  tilesFetched: string[];
  /** Each checkpoint's ML-DSA-44 (0x06) line: the message Go rebuilt from the spec, for OpenSSL to verify. */
  mldsa44: { checkpoint: number; key: string; timestamp: number; message: string; signature: string; publicKey: string }[] | null;
}

/** Runs tlogcheck asynchronously: the vouch service it fetches tiles from runs in this process. */
export function runChecker(bin: string, job: GoJob): Promise<GoReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0 && code !== 1) reject(new Error(`tlogcheck exited ${code}: ${err}`));
      else resolve(JSON.parse(out) as GoReport);
    });
    child.stdin.end(JSON.stringify(job));
  });
}

