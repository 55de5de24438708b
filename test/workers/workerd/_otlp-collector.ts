// globalSetup of the workerd suite (runs in Node): a minimal OTLP/HTTP receiver on 127.0.0.1 for
// otlp.spec.ts. It keeps every request body it is sent (POST /v1/traces, /v1/logs: the JSON the
// Worker's exporter sends) and answers GET /received with them all, so a spec inside workerd can
// look at what a collector got. Under /hang/ it never answers. The specs read its URL with inject('otlpCollector').
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    otlpCollector: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const got: { path: string; contentType: string | undefined; body: string }[] = [];
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/received') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(got));
    // Under /hang/ the receiver reads the request and never answers: a collector that hangs.
    if (req.url?.startsWith('/hang/')) return void req.resume();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ path: req.url ?? '', contentType: req.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  project.provide('otlpCollector', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return () => new Promise<void>((r) => server.close(() => r()));
}
