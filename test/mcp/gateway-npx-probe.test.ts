// The documented way to put vouch in front of a server for a 2026 client (docs/mcp-2026.md's demo):
// the SDK v2 client starts `npx vouch gateway` over stdio, pinned to 2026-07-28. The SDK asks
// `server/discover` on a short-lived sibling it starts from the same command and then stops; with
// `npx` as a wrapper, the sibling gateway is still shutting down (stopping its upstream, writing its
// shutdown checkpoint) when the session's gateway opens the same data directory. The session's
// gateway waits for that lock to be let go rather than refusing to start.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { everythingCmd, ROOT } from './_gateway.js';

describe('npx vouch gateway under the SDK v2 client pinned to 2026-07-28 (the docs demo)', () => {
  it('connects after the SDK\'s sibling probe, calls a tool, and names the receipt', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'vouch-npx-probe-')), 'data');
    const c = new Client({ name: 'my-agent', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const stderr: string[] = [];
    const transport = new StdioClientTransport({ command: 'npx', args: ['vouch', 'gateway', '--data', data, '--upstream-cmd', everythingCmd()], cwd: ROOT, stderr: 'pipe' });
    transport.stderr?.on('data', (b: Buffer) => stderr.push(b.toString()));
    try {
      await c.connect(transport);
      expect(c.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const r = await c.callTool({ name: 'echo', arguments: { message: 'call me at 415 555 0199' } });
      expect(JSON.stringify(r.content)).toContain('[PHONE_REDACTED]');
      expect(r._meta?.['io.vouch/receipt-command']).toMatch(/^vouch receipt \d+ --data /);
    } catch (e) {
      throw new Error(`${String(e)}\n--- gateway stderr ---\n${stderr.join('')}`);
    } finally {
      await c.close();
    }
  }, 120_000);
});
