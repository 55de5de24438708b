// A minimal OTLP/HTTP collector on 127.0.0.1 for the telemetry tests: records every request body
// (the JSON encoding the SDK's exporters send) and decodes spans and log records from them.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  contentType: string | undefined;
  body: any;
}

export interface Span {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attrs: Record<string, unknown>;
}

type Attr = { key: string; value: Record<string, unknown> };
const attrs = (list: Attr[]) => Object.fromEntries(list.map((a) => [a.key, Object.values(a.value)[0]]));

export async function collector() {
  const got: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* kept as text */
      }
      got.push({ path: req.url ?? '', contentType: req.headers['content-type'], body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const spans = (): Span[] =>
    got
      .filter((g) => g.path === '/v1/traces')
      .flatMap((g) => g.body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans.map((sp: any) => ({ ...sp, attrs: attrs(sp.attributes) })))));
  /** Poll until `f` gives a value (or fail naming the spans received). */
  const until = async <T>(f: () => T | undefined, ms = 15_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = f();
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error('timed out waiting for telemetry: ' + JSON.stringify(spans().map((x) => [x.name, x.attrs['vouch.seq'], x.traceId])));
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { got, url, spans, until, close: () => new Promise<void>((r) => server.close(() => r())) };
}

export const seqOf = (sp: Span): number => Number(sp.attrs['vouch.seq']);
