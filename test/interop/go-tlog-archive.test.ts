// The tile archive read by someone else's code with no vouch code serving it (issue 40: "an export
// of sealed tiles verifies with Go's tlog packages"): `vouch log archive` writes it, a plain static
// file server (node:http and readFile, nothing else) serves the directory, and Go's note.Open,
// tlog.TileHashReader, TreeHash, CheckRecord/ProveRecord and CheckTree/ProveTree check it against
// the log's signed checkpoints and vouch's own proofs. Needs `go`: CI installs it.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, normalize, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toHex } from '../../src/canonical/index.js';
import { formatKeys } from '../../src/cli/commands/_keys-export.js';
import { consistencyProof, inclusionProof } from '../../src/log/index.js';
import { logPath, openSqliteStore } from '../../src/store/node.js';
import { exportedKeys } from '../../src/store/published-keys.js';
import { runVouch } from '../helpers/cli.js';
import { makeLog } from '../store/_archive-log.js';
import { buildChecker, runChecker, type GoJob } from './_tlogcheck.js';

let bin: string;
let root: string;
let data: string;
let server: Server;
let prefix: string;
let job: GoJob;

/** A static file server over `dir`: GET a path, get the file's bytes or 404. No vouch code. */
function staticServer(dir: string): Promise<Server> {
  const s = createServer((req, res) => {
    const path = normalize(join(dir, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)));
    if (!path.startsWith(dir + sep)) return void res.writeHead(403).end();
    readFile(path).then(
      (b) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(b),
      () => res.writeHead(404).end('not found'),
    );
  });
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(s)));
}

beforeAll(async () => {
  bin = buildChecker();
  root = mkdtempSync(join(tmpdir(), 'vouch-go-archive-'));
  data = await makeLog(600, 'agent', join(root, 'data'));
  // Written by the CLI from the database; then the served directory is only files.
  expect((await runVouch('log', 'archive', '--data', data)).code).toBe(0);
  server = await staticServer(join(data, 'archive', 'default'));
  prefix = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const store = openSqliteStore(logPath(data, 'default'), { readonly: true });
  try {
    const checkpoints = [...store.checkpoints()];
    const last = checkpoints[checkpoints.length - 1];
    expect(last.size).toBe(600);
    const inclusion = [0, 1, 255, 256, 300, 511, 512, 599].map((seq) => ({ seq, size: last.size, proof: inclusionProof(seq, last.size, store).map(toHex), checkpoint: last.note }));
    const mid = checkpoints.find((c) => c.size > 256 && c.size < 512)!;
    inclusion.push({ seq: 3, size: mid.size, proof: inclusionProof(3, mid.size, store).map(toHex), checkpoint: mid.note });
    const consistency = [[checkpoints[0], mid], [mid, last], [checkpoints[0], last]].map(([a, b]) => ({ from: a.size, to: b.size, proof: consistencyProof(a.size, b.size, store).map(toHex), checkpoint: b.note, fromCheckpoint: a.note }));
    const vkeys = formatKeys(exportedKeys(data, 'vouch.local', 'default'), 'note').split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
    job = { prefix, vkeys, checkpoints: checkpoints.map((c) => c.note), inclusion, consistency };
  } finally {
    store.close();
  }
}, 180_000);

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  rmSync(root, { recursive: true, force: true });
});

describe("Go's sumdb/tlog reads the tile archive from a plain static file server", () => {
  it('opens its checkpoint, recomputes every signed root from the tiles, checks every entry and the proofs', async () => {
    const report = await runChecker(bin, job);
    expect(report.failures ?? []).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.treeSize).toBe(600);
    expect(report.verifiers.length).toBeGreaterThanOrEqual(1); // Ed25519, verified by Go
    expect(report.tilesFetched).toEqual(expect.arrayContaining(['tile/0/000', 'tile/0/001', 'tile/0/002.p/88', 'tile/1/000.p/2', 'tile/entries/000', 'tile/entries/001', 'tile/entries/002.p/88']));
    expect(report.checks.join('\n')).toMatch(/all 600 entries in the bundles hash \(tlog.RecordHash\) to their level-0 tile hashes/);
    expect(report.checks.join('\n')).toMatch(/9 inclusion proofs: tlog.CheckRecord accepts each, tlog.ProveRecord gives the same bytes/);
    expect(report.checks.join('\n')).toMatch(/3 consistency proofs: tlog.CheckTree accepts each, tlog.ProveTree gives the same bytes/);
  });

  it('is not vacuous: a changed archived tile or bundle is refused by Go', async () => {
    for (const [rel, at, expectFailure] of [
      ['tile/0/001', 64, /entry 258: tlog.RecordHash of its bundle bytes is not the level-0 tile hash|from tiles/],
      ['tile/entries/000', 40, /entry \d+: tlog.RecordHash of its bundle bytes is not the level-0 tile hash/],
    ] as const) {
      const path = join(data, 'archive', 'default', rel);
      const original = readFileSync(path);
      const bad = Buffer.from(original);
      bad[at] ^= 1;
      writeFileSync(path, bad);
      try {
        const report = await runChecker(bin, job);
        expect(report.ok, rel).toBe(false);
        expect((report.failures ?? []).join('\n'), rel).toMatch(expectFailure);
      } finally {
        writeFileSync(path, original);
      }
    }
  });
});
