// A client that hangs up before its first message (stdin at end of file from the start, as with
// `< /dev/null`), while the upstream already asks the client something (server-everything asks for
// roots once initialized): the gateway shuts down cleanly and exits 0. It used to miss the end of
// stdin (the event came before it listened) and wait for a signal, then crash on an unhandled
// rejection of the upstream's waiting request when it closed.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { everythingCmd, ROOT, VOUCH_BIN } from './_gateway.js';

describe('vouch gateway whose client hangs up before it speaks', () => {
  it('exits 0 on its own, saying why, with no unhandled error', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'vouch-gw-early-')), 'data');
    const child = spawn(process.execPath, [VOUCH_BIN, 'gateway', '--data', data, '--upstream-cmd', everythingCmd()], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => child.once('exit', (c, s) => r([c, s])));
    clearTimeout(timer);
    expect(signal, err).toBeNull();
    expect(code, err).toBe(0);
    expect(err).toContain('"why":"stdin closed"');
    expect(err).not.toMatch(/Unhandled|^\s+at /m);
  }, 120_000);
});
