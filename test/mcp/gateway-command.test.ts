// The upstream command line (split like a shell, never run by one) and the server names derived
// from commands and URLs; the CLI's usage errors.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serverNameOfCommand, serverNameOfUrl, splitCommand } from '../../src/mcp/gateway-command.js';
import { openGateway } from '../../src/mcp/gateway-node.js';
import { main } from '../../src/cli/main.js';
import { makeWorkspace } from './_gateway.js';

describe('splitCommand', () => {
  it('splits on blanks, keeps quoted text whole and honours escapes', () => {
    expect(splitCommand('  node  server.js   --flag ')).toEqual(['node', 'server.js', '--flag']);
    expect(splitCommand(`node 'my dir/server.js' "a \\"b\\" c" d\\ e ''`)).toEqual(['node', 'my dir/server.js', 'a "b" c', 'd e', '']);
    expect(splitCommand(`echo '$HOME' "$(rm -rf x)" ; ls`)).toEqual(['echo', '$HOME', '$(rm -rf x)', ';', 'ls']);
    expect(splitCommand(`x "back\\\\slash" 'no\\escape'`)).toEqual(['x', 'back\\slash', 'no\\escape']);
  });

  it('rejects what it cannot split, with ERR_INPUT', () => {
    for (const bad of ['', '   ', `node 'open`, 'node "open', 'node \\']) {
      expect(() => splitCommand(bad)).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
    }
  });
});

describe('server names', () => {
  it('come from the package or script of a command', () => {
    expect(serverNameOfCommand(splitCommand('node node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio'))).toBe('everything');
    expect(serverNameOfCommand(splitCommand('npx -y @modelcontextprotocol/server-filesystem@2026.8.31 /tmp/x'))).toBe('filesystem');
    expect(serverNameOfCommand(splitCommand('uvx mcp-server-git --repository .'))).toBe('git');
    expect(serverNameOfCommand(splitCommand('docker run -i --rm weather-mcp'))).toBe('weather');
    expect(serverNameOfCommand(splitCommand('python3 ./tools/billing.py'))).toBe('billing');
    expect(serverNameOfCommand(splitCommand('node dist/index.js'))).toBe('upstream');
  });

  it('come from the path or host of a URL', () => {
    expect(serverNameOfUrl('https://mcp.example.com/mcp')).toBe('example');
    expect(serverNameOfUrl('https://linear.app/sse')).toBe('linear');
    expect(serverNameOfUrl('https://api.example.com/github/mcp')).toBe('github');
    expect(serverNameOfUrl('http://127.0.0.1:3001/mcp')).toBe('local-3001');
    expect(serverNameOfUrl('http://localhost:8080/')).toBe('localhost-8080');
    expect(() => serverNameOfUrl('not a url')).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
  });
});

describe('openGateway', () => {
  it('rejects a bad upstream or server name before touching the data dir', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'vouch-gw-bad-')), 'data');
    await expect(openGateway({ data, upstream: { url: 'not a url' } })).rejects.toMatchObject({ code: 'ERR_INPUT' });
    await expect(openGateway({ data, upstream: { command: `node 'open` } })).rejects.toMatchObject({ code: 'ERR_INPUT' });
    await expect(openGateway({ data, upstream: { command: 'node x.js' }, serverName: 'two words' })).rejects.toMatchObject({ code: 'ERR_INPUT' });
    await expect(openGateway({ data, upstream: { command: 'node x.js' }, upstreamEra: 'modern' as never })).rejects.toMatchObject({ code: 'ERR_INPUT' });
    expect(existsSync(data)).toBe(false);
  });
});

describe('vouch gateway usage', () => {
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { out: (l: string) => void out.push(l), err: (l: string) => void err.push(l) } };
  };

  it('needs exactly one upstream', async () => {
    const a = io();
    expect(await main(['gateway'], a.io)).toBe(2);
    expect(a.err.join('\n')).toContain('give exactly one of --upstream-cmd or --upstream-url');
    const b = io();
    expect(await main(['gateway', '--upstream-cmd', 'x', '--upstream-url', 'http://127.0.0.1:1/mcp'], b.io)).toBe(2);
  });

  it('rejects a bad --listen and a bad --env', async () => {
    const a = io();
    expect(await main(['gateway', '--upstream-cmd', 'x', '--listen', 'nowhere'], a.io)).toBe(2);
    expect(a.err.join('\n')).toContain('--listen takes HOST:PORT');
    const b = io();
    expect(await main(['gateway', '--upstream-cmd', 'x', '--env', 'BAD NAME=1'], b.io)).toBe(2);
  });

  it('rejects an --upstream-era it does not know, naming the ones it does', async () => {
    const a = io();
    expect(await main(['gateway', '--upstream-cmd', 'x', '--upstream-era', '2025-06-18'], a.io)).toBe(2);
    expect(a.err.join('\n')).toContain('--upstream-era takes "auto", "legacy", "2026-07-28"');
  });

  it('is listed in the usage and has its own help', async () => {
    const a = io();
    expect(await main(['--help'], a.io)).toBe(0);
    expect(a.out.join('\n')).toContain('gateway');
    const b = io();
    expect(await main(['gateway', '--help'], b.io)).toBe(0);
    expect(b.out.join('\n')).toContain('--upstream-cmd');
  });

  it('exits 3 with a clear message when the upstream cannot be started', async () => {
    const ws = makeWorkspace('vouch-gw-noup-');
    const a = io();
    expect(await main(['gateway', '--data', ws.data, '--config', ws.config, '--upstream-cmd', 'vouch-no-such-command-xyz', '--quiet'], a.io)).toBe(3);
    expect(a.err.join('\n')).toContain('upstream server "vouch-no-such-command-xyz" is not available: cannot connect');
    expect(a.out).toEqual([]);
  });
});
