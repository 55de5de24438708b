// The HTTP bench's load generator, run by bench/_http-job.ts in its own process so that its work
// never shares the server's event loop: a raw HTTP/1.1 keep-alive client over node:net, with
// every request's bytes built before the clock starts. Reads one LoadJob (JSON) on stdin, opens
// `concurrency` connections to 127.0.0.1, sends one request at a time on each (no pipelining),
// and prints one JSON line, a LoadResult: {rate, p50, p99, errors, n}.
import { connect, type Socket } from 'node:net';
import { text } from 'node:stream/consumers';
import type { LoadJob, LoadResult } from './_http-job.js';
import { percentile } from './_stats.js';

const HEAD_END = Buffer.from('\r\n\r\n');

const job = JSON.parse(await text(process.stdin)) as LoadJob;
const requests = buildRequests(job);
const expect = job.expect === undefined ? undefined : Buffer.from(job.expect);
const latencies = new Float64Array(job.total);
let next = 0;
let errors = 0;

function buildRequests({ method, path, port, bodies }: LoadJob): Buffer[] {
  const head = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`;
  if (method === 'GET') return [Buffer.from(`${head}\r\n`)];
  if (!bodies?.length) throw new Error('a POST job needs bodies');
  return bodies.map((b) => Buffer.from(`${head}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(b)}\r\n\r\n${b}`));
}

function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: job.port, noDelay: true }, () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Status, body offset and total length of the response at the start of `buf`, once its head is in. */
function parseHead(buf: Buffer): { status: number; bodyStart: number; length: number } | undefined {
  const end = buf.indexOf(HEAD_END);
  if (end < 0) return undefined;
  const [statusLine, ...headers] = buf.toString('latin1', 0, end).split('\r\n');
  if (!statusLine.startsWith('HTTP/1.1 ')) throw new Error(`not an HTTP/1.1 response: ${statusLine}`);
  let contentLength: number | undefined;
  for (const h of headers) {
    const name = h.slice(0, h.indexOf(':')).toLowerCase();
    if (name === 'transfer-encoding') throw new Error(`the load client reads Content-Length bodies only, got ${h}`);
    if (name === 'content-length') contentLength = Number(h.slice(name.length + 1));
  }
  if (contentLength === undefined) throw new Error(`response without Content-Length: ${statusLine}`);
  const bodyStart = end + HEAD_END.length;
  return { status: Number(statusLine.slice(9, 12)), bodyStart, length: bodyStart + contentLength };
}

/** Send requests on one connection, one at a time, until the job has none left. */
function drive(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    let i = -1;
    let sentAt = 0;
    let buf: Buffer = Buffer.alloc(0);
    let head: ReturnType<typeof parseHead>;
    const send = () => {
      if (next >= job.total) {
        socket.destroy();
        return resolve();
      }
      i = next++;
      sentAt = performance.now();
      socket.write(requests[i % requests.length]);
    };
    socket.on('data', (chunk: Buffer) => {
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
      head ??= parseHead(buf);
      if (head === undefined || buf.length < head.length) return;
      latencies[i] = performance.now() - sentAt;
      if (buf.length > head.length) return reject(new Error('bytes past the end of a response'));
      if (head.status !== 200 || (expect !== undefined && !buf.subarray(head.bodyStart).includes(expect))) errors++;
      buf = Buffer.alloc(0);
      head = undefined;
      send();
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error('the server closed a connection mid-run'))); // no-op once resolved
    send();
  });
}

const sockets = await Promise.all(Array.from({ length: job.concurrency }, open));
const t0 = performance.now();
const cpu0 = process.cpuUsage();
await Promise.all(sockets.map(drive));
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const samples = Array.from(latencies);
const result: LoadResult = { rate: job.total / seconds, p50: percentile(samples, 50), p99: percentile(samples, 99), errors, n: samples.length, clientCpuMs: (cpu.user + cpu.system) / 1000 / job.total };
process.stdout.write(JSON.stringify(result) + '\n');
