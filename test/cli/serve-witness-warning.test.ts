// Issue 35, clean cut of the log's end: witnesses are what a production setup gets. `vouch serve`
// in auth mode with no witness configured says so at start, on stderr, in one line naming the fix;
// with a witness listed (reachable or not) it does not; development mode has its own warning.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_WITNESS_WARNING } from '../../src/cli/commands/serve.js';
import { createCosigner, formatCosignerVkey } from '../../src/witness/index.js';
import { testIssuer } from '../http/_server.js';
import { startServe } from './_serve.js';

describe('vouch serve without a witness', () => {
  it('warns once at start in auth mode, naming the fix; not when a witness is configured', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-serve-witness-'));
    const auth = join(dir, 'auth.json');
    writeFileSync(auth, JSON.stringify((await testIssuer()).auth));
    const bare = await startServe(['--port', '0', '--data', join(dir, 'a'), '--auth', auth], { timeoutMs: 120_000 });
    const err = bare.stderr();
    await bare.stop();
    const lines = err.split('\n').filter((l) => l.includes('no witness configured'));
    expect(lines).toEqual([NO_WITNESS_WARNING]);
    expect(NO_WITNESS_WARNING).toMatch(/^WARNING: .*--witnesses FILE.*vouch witness.*docs\/witnesses\.md/);

    const witnesses = join(dir, 'witnesses.json');
    const vkey = formatCosignerVkey(createCosigner('w.example/1', 'Ed25519', new Uint8Array(32).fill(3)));
    writeFileSync(witnesses, JSON.stringify({ witnesses: [{ url: 'http://127.0.0.1:9', vkeys: [vkey] }] }));
    const witnessed = await startServe(['--port', '0', '--data', join(dir, 'b'), '--auth', auth, '--witnesses', witnesses], { timeoutMs: 120_000 });
    const err2 = witnessed.stderr();
    await witnessed.stop();
    expect(err2).not.toMatch(/no witness configured/);

    const dev = await startServe(['--port', '0', '--data', join(dir, 'c')], { timeoutMs: 120_000 });
    const err3 = dev.stderr();
    await dev.stop();
    expect(err3).toMatch(/development mode/);
    expect(err3).not.toMatch(/no witness configured/);
  }, 240_000);
});
