// Issue 19: the policy in force is shown, not the config's digest, and a config file that is not in
// force says so. A real `vouch serve` child: a pinned policy wins over vouch.yaml at start (the
// ready block names it and the entry it came from; a WARNING says how to activate the file); an
// edit while running is a warning, not a silent no-op; `vouch policy activate --url` activates it
// live; `vouch policy history` lists every activation (seq, time, digests, who, pinned).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { loadConfigFile } from '../../src/policy/load-config.js';
import { startServe } from './_serve.js';

async function vouch(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const short = (d: string) => `${d.slice(0, 19)}…`;

describe('vouch policy: the policy in force, shown and warned about', () => {
  it('pinned policy at start, edits while running, live activation, and the history of all of it', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'vouch-policy-')), 'data');
    expect((await vouch('init', '--data', data)).code).toBe(0);
    const config = join(data, 'vouch.yaml');
    const fileChain = (await loadConfigFile(config)).chainDigest;

    // First start: the file is what runs (recorded by start-up, not pinned); no warning.
    let s = await startServe(['--port', '0', '--data', data]);
    try {
      expect(s.ready).toContain(`policy ${short(fileChain)}`);
      expect(s.ready).toMatch(new RegExp(`tenant default: chain ${esc(short(fileChain))} .* from ${esc(config)}; policy entry #0 \\(\\S+, by start-up, not pinned\\)`));
      expect(s.stderr()).not.toMatch(/NOT the policy in force/);
    } finally {
      await s.stop();
    }

    // An operator pins another policy (stopped data dir): from now on it wins over vouch.yaml.
    const other = join(data, 'stricter.yaml');
    writeFileSync(other, readFileSync(config, 'utf8').replace('maxTokens: 4000', 'maxTokens: 1000'));
    const pinned = JSON.parse((await vouch('policy', 'activate', other, '--data', data, '--json')).out);
    expect(pinned).toMatchObject({ seq: 1, pinned: true });
    expect(pinned.chain).not.toBe(fileChain);

    s = await startServe(['--port', '0', '--data', data]);
    try {
      // The ready block shows the policy in force (the pinned one), not the config's digest.
      expect(s.ready).toContain(`policy ${short(pinned.chain)}`);
      expect(s.ready).toContain(`  config   ${config}  chain ${short(fileChain)}`);
      expect(s.ready).toMatch(new RegExp(`tenant default: chain ${esc(short(pinned.chain))} .* pinned, NOT the config file; policy entry #1 \\(\\S+, by cli:${esc(userInfo().username)}, pinned\\)`));
      // ...and warns that the file is not in force, with the commands that put it in force.
      const w = await s.waitErr(/WARNING: tenant default: the config file .*\n/);
      expect(w[0]).toContain(`${config} (chain ${short(fileChain)}) is NOT the policy in force`);
      expect(w[0]).toContain(`\`vouch policy activate ${config} --url ${s.url}\``);
      expect(w[0]).toContain(`\`vouch policy activate ${config} --data ${data}\``);
      expect(w[0]).toContain('`vouch policy unpin');

      // An edit while running is not silently ignored.
      writeFileSync(config, readFileSync(config, 'utf8').replace('maxTokens: 4000', 'maxTokens: 2000'));
      const editedChain = (await loadConfigFile(config)).chainDigest;
      const e = await s.waitErr(/WARNING: tenant default: .* was edited .*\n/);
      expect(e[0]).toContain(`(chain ${short(editedChain)}) and is NOT in force: the service keeps chain ${short(pinned.chain)}`);
      // A broken edit says so too (the policy in force is unchanged).
      writeFileSync(config, readFileSync(config, 'utf8') + '\nfoo: [\n');
      await s.waitErr(/WARNING: .*vouch\.yaml was edited and cannot be loaded .*not valid YAML/);
      writeFileSync(config, readFileSync(config, 'utf8').replace('\nfoo: [\n', ''));

      // The hint works: activate the edited file on the running service.
      const live = await vouch('policy', 'activate', config, '--url', s.url, '--json');
      expect(live.code, live.err).toBe(0);
      expect(JSON.parse(live.out)).toMatchObject({ activated: true, chain: editedChain, pinned: true });

      // History is read-only: it works while the service holds the log.
      const h = await vouch('policy', 'history', '--data', data, '--json');
      expect(h.code).toBe(0);
      const list = JSON.parse(h.out);
      expect(list.activations.map((a: any) => [a.seq, a.action, a.by, a.pinned, a.chain, a.inForce])).toEqual([
        [0, 'activate', 'start-up', false, fileChain, false],
        [1, 'activate', `cli:${userInfo().username}`, true, pinned.chain, false],
        [expect.any(Number), 'activate', 'local-operator', true, editedChain, true],
      ]);
      expect(list.inForce).toBe(list.activations[2].seq);
      for (const a of list.activations) {
        expect(a.time).toMatch(/^\d{4}-\d{2}-\d{2}T/);
        expect(a.policySet).toMatch(/^sha256:[0-9a-f]{64}$/);
      }
    } finally {
      await s.stop();
    }

    // Unpin (stopped): recorded as an entry too; the text history shows every row.
    const u = await vouch('policy', 'unpin', '--data', data);
    expect(u.out).toMatch(/unpinned tenant default \(policy entry #\d+\)/);
    const text = await vouch('policy', 'history', '--data', data);
    const rows = text.out.split('\n');
    expect(rows[0]).toMatch(/^seq\s+time\s+action\s+pinned\s+by\s+chain\s+policy set$/);
    expect(rows.slice(1, 5).map((l) => l.split(/\s+/).slice(0, 5).filter((_, i) => i !== 1))).toEqual([
      ['0', 'activate', 'no', 'start-up'],
      ['1', 'activate', 'yes', `cli:${userInfo().username}`],
      [expect.any(String), 'activate', 'yes', 'local-operator'],
      [expect.any(String), 'unpin', 'no', `cli:${userInfo().username}`],
    ]);
    expect(rows[4]).toMatch(/<- in force$/);
    expect(text.out).toMatch(/in force: policy entry #\d+, not pinned: the next start uses the config file/);
  }, 240_000);

  it('history of a log without policy entries, and of a missing tenant', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'vouch-policy-none-')), 'data');
    expect((await vouch('init', '--data', data)).code).toBe(0);
    const r = await vouch('policy', 'history', '--data', data, '--tenant', 'nobody');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no log for tenant nobody/);
  });
});
