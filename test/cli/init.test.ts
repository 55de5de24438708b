// `vouch init` shows the vkeys a user can verify with: the keys under the name the default
// tenant's log signs its checkpoints with (its origin), so a checkpoint of that log opens with
// exactly the printed vkeys, strictly (ML-DSA-65 required), and never with another data dir's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { openCheckpoint, parseVkey } from '../../src/log/index.js';
import { openDataDir } from '../../src/store/node.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

async function init(): Promise<{ dir: string; json: { origin: string; keys: { alg: string; vkey: string }[] } }> {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-init-'));
  dirs.push(dir);
  const out: string[] = [];
  expect(await main(['init', '--data', dir, '--json'], { out: (l) => out.push(l), err: () => undefined })).toBe(0);
  return { dir, json: JSON.parse(out.join('\n')) };
}

async function newestNote(dir: string): Promise<string> {
  const dd = await openDataDir(dir, { thread: false });
  try {
    const { appender } = dd.log('default');
    return (await appender.append({ type: 'decision', time: '2026-12-01T00:00:00Z', event: 'tools/call', id: 'one' })).checkpoint;
  } finally {
    await dd.close();
  }
}

describe('vouch init', () => {
  it('prints the vkeys of the default log, under its origin, and they open its checkpoints', async () => {
    const { dir, json } = await init();
    expect(json.origin).toBe('vouch.local/default');
    expect(json.keys.map((k) => k.alg)).toEqual(['ML-DSA-65', 'Ed25519', 'ML-DSA-44']);
    for (const k of json.keys) expect(k.vkey.startsWith('vouch.local/default+')).toBe(true);
    const note = await newestNote(dir);
    const cp = openCheckpoint(note, json.keys.map((k) => parseVkey(k.vkey)));
    expect(cp.size).toBe(1);
  });

  it("another data directory's printed vkeys do not open the checkpoint", async () => {
    const a = await init();
    const b = await init();
    const note = await newestNote(a.dir);
    expect(() => openCheckpoint(note, b.json.keys.map((k) => parseVkey(k.vkey)))).toThrow(expect.objectContaining({ code: 'ERR_VERIFY_NOTE' }));
  });
});
