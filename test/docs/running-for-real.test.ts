// docs/running-for-real.md's systemd unit, taken from the page itself: `systemd-analyze verify`
// accepts it without a warning (where systemd-analyze is installed), and it holds what the page
// promises: a dedicated user, restart on failure but not on the exit codes that need a person, the
// data directory as the only writable path, hardening, the node flag bin/vouch.js starts with.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/io.js';

const PAGE = readFileSync(new URL('../../docs/running-for-real.md', import.meta.url), 'utf8');
const SHEBANG = readFileSync(new URL('../../bin/vouch.js', import.meta.url), 'utf8').split('\n', 1)[0];

/** The ```ini block under "## The unit". */
function unitText(page: string): string {
  const at = page.indexOf('\n## The unit\n');
  expect(at, 'the page has "## The unit"').toBeGreaterThan(0);
  const m = /```ini\n([\s\S]*?)```/.exec(page.slice(at));
  expect(m, 'an ini block under it').not.toBeNull();
  return m![1];
}

/** Section -> key -> every value given (systemd keys may repeat). */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[([A-Za-z]+)\]$/.exec(line);
    if (section) {
      current = new Map();
      sections.set(section[1], current);
      continue;
    }
    const kv = /^([A-Za-z][A-Za-z0-9]*)=(.*)$/.exec(line);
    if (!kv || !current) throw new Error(`not a unit file line: ${raw}`);
    current.set(kv[1], [...(current.get(kv[1]) ?? []), kv[2]]);
  }
  return sections;
}

const UNIT = unitText(PAGE);
const units = parseUnit(UNIT);
const service = units.get('Service')!;
const one = (key: string) => {
  const v = service.get(key);
  expect(v, `[Service] ${key}`).toBeDefined();
  return v![v!.length - 1];
};

describe('docs/running-for-real.md: the systemd unit', () => {
  it('has [Unit], [Service] and [Install] with a target', () => {
    expect([...units.keys()]).toEqual(['Unit', 'Service', 'Install']);
    expect(units.get('Install')!.get('WantedBy')).toEqual(['multi-user.target']);
  });

  it('runs `vouch serve` as a dedicated user, on the data directory it alone may write', () => {
    expect(one('User')).toBe('vouch');
    expect(one('Group')).toBe('vouch');
    const exec = one('ExecStart').split(/\s+/);
    const data = exec[exec.indexOf('--data') + 1];
    expect(exec.slice(exec.indexOf('/opt/vouch/bin/vouch.js') + 1, exec.indexOf('/opt/vouch/bin/vouch.js') + 2)).toEqual(['serve']);
    expect(data).toBe('/var/lib/vouch');
    expect(one('ReadWritePaths')).toBe(data);
    expect(`/var/lib/${one('StateDirectory')}`).toBe(data);
    expect(one('StateDirectoryMode')).toBe('0700');
    expect(one('UMask')).toBe('0077');
  });

  it("starts node with the flags bin/vouch.js's first line gives", () => {
    const exec = one('ExecStart').split(/\s+/);
    const flags = exec.slice(1, exec.indexOf('/opt/vouch/bin/vouch.js'));
    expect(flags).toEqual(SHEBANG.replace('#!/usr/bin/env -S node', '').trim().split(/\s+/));
  });

  it('restarts on failure, but not on the exit codes of a usage, config, store or key problem', () => {
    expect(one('Restart')).toBe('on-failure');
    expect(one('RestartPreventExitStatus').split(/\s+/).map(Number)).toEqual([EXIT.usage, EXIT.input, EXIT.store]);
    expect(Number(one('TimeoutStopSec'))).toBeGreaterThanOrEqual(10); // room for the shutdown checkpoint
  });

  it('is hardened: read-only system, no privileges, no home, private /tmp and devices, and V8 still may JIT', () => {
    for (const [key, value] of [['ProtectSystem', 'strict'], ['ProtectHome', 'yes'], ['PrivateTmp', 'yes'], ['PrivateDevices', 'yes'], ['NoNewPrivileges', 'yes'], ['CapabilityBoundingSet', ''], ['RestrictSUIDSGID', 'yes']]) {
      expect(one(key), key).toBe(value);
    }
    expect(service.has('MemoryDenyWriteExecute'), 'V8 needs writable executable memory').toBe(false);
  });

  const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
  it.skipIf(analyze.status !== 0)(analyze.status === 0 ? '`systemd-analyze verify` accepts it with no warning' : 'skipped: systemd-analyze is not installed here (the unit\'s keys are checked above)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-unit-'));
    // The unit names /usr/bin/node (Debian's); where node lives elsewhere, verify the same unit with that path.
    const text = existsSync('/usr/bin/node') ? UNIT : UNIT.replace('ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `);
    writeFileSync(join(dir, 'vouch.service'), text);
    const r = spawnSync('systemd-analyze', ['verify', join(dir, 'vouch.service')], { encoding: 'utf8' });
    expect(r.stderr + r.stdout).toBe('');
    expect(r.status).toBe(0);
  });

  it('the check above fails on a unit systemd would not take as written', () => {
    expect(() => parseUnit('[Service]\nnot a key\n')).toThrow(/not a unit file line/);
    if (analyze.status !== 0) return;
    const dir = mkdtempSync(join(tmpdir(), 'vouch-unit-bad-'));
    const text = existsSync('/usr/bin/node') ? UNIT : UNIT.replace('ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `);
    writeFileSync(join(dir, 'vouch.service'), text.replace('ProtectSystem=strict', 'ProtectSystem=very'));
    const r = spawnSync('systemd-analyze', ['verify', join(dir, 'vouch.service')], { encoding: 'utf8' });
    expect(r.stderr).toMatch(/protect system value.*very/);
  });
});
