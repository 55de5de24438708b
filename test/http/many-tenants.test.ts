// Many tenants in one data directory (issue 40), on a real server with bearer tokens: 1,000 tenants
// each decided in; open file handles stay bounded by the cap (counted in /proc/self/fd), /metrics
// stays bounded in size, a restart over 1,000 logs opens none of them (counted opens, not wall
// time), and an entry answered durable just before its log closes when idle is kept, and the log
// verifies after it reopens.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { EAGER_TENANTS } from '../../src/http/tenant-logs.js';
import { listTenants } from '../../src/store/node.js';
import { captureIo } from '../audit/_generate.js';
import { get, post, testIssuer } from './_server.js';

const TENANTS = 1000;
const CAP = 8;
const root = mkdtempSync(join(tmpdir(), 'vouch-many-tenants-'));
const data = join(root, 'data');
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Open file descriptors of this process (Linux). */
const fds = (): number => readdirSync('/proc/self/fd').length;
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const call = (text: string, extra: Record<string, unknown> = {}) => ({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text } }, ...extra });
const linux = existsSync('/proc/self/fd');

describe.runIf(linux)(linux ? '1,000 tenants in one data directory' : 'skipped: not Linux (open files are counted in /proc/self/fd)', () => {
  let issuer: Awaited<ReturnType<typeof testIssuer>>;
  const tokens: string[] = [];
  let operator: string;

  it('each tenant decides; open file handles and open logs stay bounded by the cap, /metrics by its top-N', async () => {
    issuer = await testIssuer();
    for (let i = 0; i < TENANTS; i++) tokens.push(await issuer.token({ sub: `agent-${i}`, tenant: `t${i}`, roles: ['enforce', 'audit'] }, { exp: '2h' }));
    operator = await issuer.token({ sub: 'ops', tenant: 't0', roles: ['operator', 'audit'] }, { exp: '2h' });
    const before = fds();
    const s = await startServer({ data, port: 0, auth: issuer.auth, maxOpenTenants: CAP, tenantIdleMs: 0, idleCheckpointMs: 0 });
    let peak = 0;
    try {
      let next = 0;
      const lane = async () => {
        while (next < TENANTS) {
          const i = next++;
          const r = await post(`${s.url}/v1/authorize`, call(`hello ${i}`), bearer(tokens[i]));
          expect(r.status, JSON.stringify(r.json)).toBe(200);
          if (i % 25 === 0) peak = Math.max(peak, fds());
          expect(s.tenantStats().open).toBeLessThanOrEqual(CAP + 4); // the cap, plus uses in flight
        }
      };
      await Promise.all(Array.from({ length: 4 }, lane));
      expect(listTenants(data)).toHaveLength(TENANTS);
      const stats = s.tenantStats();
      expect(stats.opens).toBe(TENANTS);
      expect(stats.closes).toBeGreaterThanOrEqual(TENANTS - CAP - 4);
      // SQLite holds a few handles an open log (database, WAL, shared memory, the writer's lock):
      // bounded by the cap, where 1,000 open logs would hold thousands.
      expect(peak - before).toBeLessThan((CAP + 4) * 6 + 40);

      const m = await fetch(`${s.url}/metrics`, { headers: bearer(operator) });
      const text = await m.text();
      expect(m.status, text).toBe(200);
      expect(text).toMatch(/^vouch_tenants 1000$/m);
      expect(text).toMatch(/^vouch_tenant_log_opens_total 1000$/m);
      expect(text).toMatch(/^vouch_log_entries_all \d+$/m);
      // Per-tenant lines for 20 tenants at most, whatever the count: the page does not grow with them.
      expect(new Set([...text.matchAll(/tenant="([^"]+)"/g)].map((x) => x[1])).size).toBeLessThanOrEqual(20);
      expect(text.length).toBeLessThan(20_000);
    } finally {
      await s.close();
    }
  }, 600_000);

  it('a restart over 1,000 tenant logs opens none of them (nor over 10: at most the eager few); the first request opens its own', async () => {
    const s = await startServer({ data, port: 0, auth: issuer.auth, maxOpenTenants: CAP, tenantIdleMs: 0, idleCheckpointMs: 0 });
    try {
      expect(s.openedAtStart).toEqual([]);
      expect(s.tenantStats()).toMatchObject({ open: 0, opens: 0 });
      const r = await post(`${s.url}/v1/authorize`, call('after restart'), bearer(tokens[500]));
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.seq).toBeGreaterThan(1); // t500's log, reopened: its policy entry and first decision came before
      expect(s.tenantStats()).toMatchObject({ open: 1, opens: 1 });
    } finally {
      await s.close();
    }
    // The same with 10 tenants: start-up opens are bounded by a constant, not by the tenant count.
    const small = join(root, 'small');
    const s10 = await startServer({ data: small, port: 0, auth: issuer.auth, tenantIdleMs: 0, idleCheckpointMs: 0 });
    try {
      for (let i = 0; i < 10; i++) expect((await post(`${s10.url}/v1/authorize`, call('x'), bearer(tokens[i]))).status).toBe(200);
    } finally {
      await s10.close();
    }
    const r10 = await startServer({ data: small, port: 0, auth: issuer.auth, tenantIdleMs: 0, idleCheckpointMs: 0 });
    try {
      expect(r10.tenantStats().opens).toBeLessThanOrEqual(EAGER_TENANTS);
    } finally {
      await r10.close();
    }
  }, 120_000);

  it('an entry answered durable just before its log closes when idle is kept, and the log verifies after it reopens', async () => {
    const s = await startServer({ data, port: 0, auth: issuer.auth, maxOpenTenants: CAP, tenantIdleMs: 1, idleCheckpointMs: 0 });
    const tenant = 't7';
    try {
      // Answered once committed, not yet signed: the idle close (1 ms) follows at once, and must wait for its signature.
      const r = await post(`${s.url}/v1/authorize`, call('just before the close', { wait: 'durable' }), bearer(tokens[7]));
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      const seq = r.json.seq as number;
      for (let i = 0; i < 200 && s.tenantStats().open > 0; i++) await new Promise((ok) => setTimeout(ok, 10));
      expect(s.tenantStats()).toMatchObject({ open: 0 });
      expect(s.tenantStats().closes).toBeGreaterThanOrEqual(1);
      // Reopened (checked against its newest signed checkpoint), the entry is there with its proof.
      const e = await get(`${s.url}/v1/entries/${seq}`, bearer(tokens[7]));
      expect(e.status, JSON.stringify(e.json)).toBe(200);
      expect(e.json.seq ?? e.json.entry?.seq ?? seq).toBe(seq);
      expect(s.tenantStats().opens).toBeGreaterThanOrEqual(2);
    } finally {
      await s.close();
    }
    const { io, text, errText } = captureIo();
    const code = await main(['log', 'verify', '--data', data, '--tenant', tenant], io);
    expect(code, text() + errText()).toBe(0);
  }, 120_000);
});
