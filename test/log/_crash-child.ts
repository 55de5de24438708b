// Child process for crash.test.ts: appends under load to a data directory until it is killed.
// Usage: node --import tsx test/log/_crash-child.ts DATA_DIR ROUND
// For every append, as soon as it resolves, prints its receipt in one line:
// `<seq> <id> <checkpoint size> <leaf hex> <proof hex,...> <sha256 hex of the checkpoint note>`.
// One write per line, under PIPE_BUF, and pipe writes are synchronous on Linux: a line the
// parent reads was acknowledged before the kill.
import { createHash } from 'node:crypto';
import { toHex } from '../../src/canonical/index.js';
import { openDataDir } from '../../src/store/node.js';

const [dir, round] = process.argv.slice(2);
const APPENDERS = 16;

const dd = await openDataDir(dir, { thread: true, logThread: true }); // the log writer thread and its ML-DSA signing thread, as the service runs
const { appender, ready } = dd.log('default');
await ready;

async function loop(w: number): Promise<void> {
  for (let i = 0; ; i++) {
    const id = `r${round}-w${w}-${i}`; // unique across every round: a reused seq would show a foreign id
    const a = await appender.append({ type: 'decision', time: '2026-11-30T00:00:00Z', event: 'tools/call', id });
    const note = createHash('sha256').update(a.checkpoint).digest('hex');
    process.stdout.write(`${a.seq} ${id} ${a.size} ${toHex(a.leaf)} ${a.proof.map(toHex).join(',')} ${note}\n`);
  }
}

await Promise.all(Array.from({ length: APPENDERS }, (_, w) => loop(w))).catch((e) => {
  process.stderr.write(`append failed: ${(e as Error)?.stack ?? e}\n`);
  process.exit(3);
});
