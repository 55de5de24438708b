// OTel export from the Worker (VOUCH_OTLP, issue 38): each appended entry becomes a span and a log
// record sent to a real OTLP/HTTP receiver on 127.0.0.1 (_otlp-collector.ts) after the answer
// (ctx.waitUntil), never before it; the span is Node's (name, attributes, status, the caller's
// trace as parent, an execution under its decision's span) and no payload text leaves.
import { env } from 'cloudflare:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { workerHandler } from '../../../src/worker/entry.js';
import { WORKER_CONFIG } from '../../../src/worker/config.js';
import type { WorkerEnv } from '../../../src/worker/env.js';

const collector = inject('otlpCollector');
const ISSUER = 'https://issuer.test';
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

type Attr = { key: string; value: Record<string, unknown> };
const attrs = (list: Attr[]) => Object.fromEntries(list.map((a) => [a.key, Object.values(a.value)[0]]));
const received = async (): Promise<{ path: string; contentType: string; body: string }[]> => (await fetch(`${collector}/received`)).json();
const spansOf = (got: { path: string; body: string }[]) =>
  got.filter((g) => g.path === '/v1/traces').flatMap((g) => JSON.parse(g.body).resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans.map((sp: any) => ({ ...sp, attrs: attrs(sp.attributes) })))));
const logsOf = (got: { path: string; body: string }[]) =>
  got.filter((g) => g.path === '/v1/logs').flatMap((g) => JSON.parse(g.body).resourceLogs.flatMap((rl: any) => rl.scopeLogs.flatMap((sl: any) => sl.logRecords.map((lr: any) => ({ ...lr, attrs: attrs(lr.attributes) })))));

let auth: string;
let token: (tenant: string, roles?: string[]) => Promise<string>;
beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  auth = JSON.stringify({ jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'EdDSA', use: 'sig' }] }, issuer: ISSUER, audience: 'vouch' });
  token = (tenant, roles = ['enforce', 'audit', 'tool-user']) => new SignJWT({ tenant, roles }).setProtectedHeader({ alg: 'EdDSA', kid: 'k1' }).setSubject('alice').setIssuer(ISSUER).setAudience('vouch').setIssuedAt().setExpirationTime('10m').sign(privateKey);
});

/** The Worker's own fetch handler with VOUCH_OTLP set; each request's waitUntil promises are kept to be awaited. */
function worker(tenant: string, vars: Partial<WorkerEnv> = {}) {
  const handler = workerHandler(WORKER_CONFIG);
  const e: WorkerEnv = { ...env, VOUCH_AUTH: auth, VOUCH_OTLP: collector, ...vars };
  const send = async (method: string, path: string, body: unknown, headers: Record<string, string> = {}, roles?: string[]) => {
    const later: Promise<unknown>[] = [];
    const res = await handler.fetch(
      new Request(`https://vouch.test${path}`, { method, headers: { authorization: `Bearer ${await token(tenant, roles)}`, 'content-type': 'application/json', ...headers }, ...(body !== undefined && { body: JSON.stringify(body) }) }),
      e,
      { waitUntil: (p) => void later.push(p) },
    );
    const text = await res.text();
    let json: any = text;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON (/metrics)
    }
    return { status: res.status, json, later };
  };
  const post = (path: string, body: unknown, headers?: Record<string, string>) => send('POST', path, body, headers);
  return Object.assign(post, { metrics: async () => (await send('GET', '/metrics', undefined, {}, ['operator'])).json as string });
}

describe('OTLP export from the Worker (VOUCH_OTLP)', () => {
  it("a decision's span and log record reach the collector after the answer, in the caller's trace; its execution's span sits under the decision's; no payload text leaves", async () => {
    const post = worker('otlp-a');
    const secret = `payload-text-${crypto.randomUUID()}`;
    const a = await post('/v1/authorize', { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: secret } } }, { traceparent: `00-${TRACE}-${CALLER_SPAN}-01`, tracestate: 'vendor=abc' });
    expect(a.status).toBe(200);
    // The export is what waitUntil runs (after the answer; a collector that hangs is the next test).
    expect(a.later.length).toBe(1);
    await Promise.all(a.later);
    const decision = spansOf(await received()).find((sp) => sp.attrs['vouch.tenant'] === 'otlp-a' && Number(sp.attrs['vouch.seq']) === a.json.seq);
    expect(decision).toMatchObject({ name: 'vouch.decision tools/call', kind: 1, traceId: TRACE, parentSpanId: CALLER_SPAN, traceState: 'vendor=abc' });
    expect(decision.attrs).toMatchObject({ 'vouch.tenant': 'otlp-a', 'vouch.entry.type': 'decision', 'vouch.effect': 'allow', 'vouch.event': 'tools/call', 'vouch.phase': 'request', 'vouch.target': 'echo', 'vouch.principal': 'alice', 'mcp.method.name': 'tools/call' });
    expect(decision.spanId).toMatch(/^[0-9a-f]{16}$/);

    const x = await post('/v1/executions', { authorization: a.json.seq, executed: a.json.finalPayload });
    expect(x.status).toBe(200);
    await Promise.all(x.later);
    const got = await received();
    const execution = spansOf(got).find((sp) => sp.attrs['vouch.tenant'] === 'otlp-a' && Number(sp.attrs['vouch.seq']) === x.json.seq);
    expect(execution).toMatchObject({ name: 'vouch.execution tools/call', traceId: TRACE, parentSpanId: decision.spanId });
    const log = logsOf(got).find((l) => l.attrs['vouch.tenant'] === 'otlp-a' && Number(l.attrs['vouch.seq']) === a.json.seq);
    expect(log).toMatchObject({ severityText: 'INFO', eventName: 'vouch.decision', traceId: TRACE, spanId: decision.spanId, body: { stringValue: `decision #${a.json.seq} allow tools/call echo` } });
    expect(got.every((g) => g.contentType === 'application/json')).toBe(true);
    expect(got.some((g) => g.body.includes(secret))).toBe(false);
  });

  it('a deny is an error span; an untraced call is a trace of its own that its execution joins', async () => {
    const post = worker('otlp-b');
    const d = await post('/v1/authorize', { event: 'tools/call', phase: 'request', payload: { name: 'dangerous_tool', arguments: {} } });
    await Promise.all(d.later);
    const deny = spansOf(await received()).find((sp) => sp.attrs['vouch.tenant'] === 'otlp-b' && Number(sp.attrs['vouch.seq']) === d.json.seq);
    expect(deny).toMatchObject({ status: { code: 2 } });
    expect(deny.attrs['vouch.effect']).toBe('deny');
    expect(deny.parentSpanId).toBeUndefined();

    const a = await post('/v1/authorize', { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'x' } } });
    const x = await post('/v1/executions', { authorization: a.json.seq, executed: a.json.finalPayload });
    await Promise.all([...a.later, ...x.later]);
    const spans = spansOf(await received()).filter((sp) => sp.attrs['vouch.tenant'] === 'otlp-b');
    const decision = spans.find((sp) => Number(sp.attrs['vouch.seq']) === a.json.seq);
    const execution = spans.find((sp) => Number(sp.attrs['vouch.seq']) === x.json.seq);
    expect(execution).toMatchObject({ traceId: decision.traceId, parentSpanId: decision.spanId });
  });

  it('a collector that hangs delays no answer: the decision is answered while its export still waits', async () => {
    const post = worker('otlp-h', { VOUCH_OTLP: `${collector}/hang` });
    const a = await post('/v1/authorize', { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'z' } } });
    expect(a.status).toBe(200);
    let settled = false;
    void Promise.all(a.later).then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 500));
    expect(settled).toBe(false);
  });

  it('a collector that is down fails no decision: the failure is counted in /metrics', async () => {
    const post = worker('otlp-c', { VOUCH_OTLP: 'http://127.0.0.1:9' });
    const a = await post('/v1/authorize', { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'y' } } });
    expect(a.status).toBe(200);
    await Promise.all(a.later);
    expect(await post.metrics()).toMatch(/^vouch_otlp_export_failures_total\{signal="traces"\} [1-9]/m);
  });

  it('a VOUCH_OTLP that is not an http(s) URL without credentials stops the Worker with ERR_CONFIG naming the var', async () => {
    for (const bad of ['not a url', 'ftp://collector.test', 'https://user:pw@collector.test']) {
      const r = await worker('otlp-d', { VOUCH_OTLP: bad })('/v1/authorize', {});
      expect(r.status).toBe(500);
      expect(r.json.error).toMatchObject({ code: 'ERR_CONFIG', message: expect.stringContaining('var VOUCH_OTLP') });
    }
  });
});
