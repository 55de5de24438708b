// CI's smoke of the archive bench (bench/archive.bench.ts) at toy size: it generates a log, writes
// its tile archive, verifies it from SQLite and from the archive (clean both ways), prunes it and
// verifies the pruned log clean, reads a pruned entry back (the same bytes as its row before), and
// every line is there.
import { describe, it } from 'vitest';
import { run, TOY } from '../../bench/archive.bench.js';
import { expectLines, runToy } from './_smoke.js';

describe('bench/archive.bench.ts', () => {
  it('at toy size, the archive is written, verifies from SQLite and from the archive, prunes and verifies pruned, every line there', async () => {
    const got = await runToy('archive', (ctx) => run(ctx, TOY));
    const n = String(TOY.entries);
    expectLines(got, [`write.${n}.usPerEntry`, `write.${n}.bytesPerEntry`, `verify.${n}.fromSqlite.rate`, `verify.${n}.fromArchive.rate`, `prune.${n}.dbBytes`, `prune.${n}.seconds`, `prune.${n}.vacuum.seconds`, `read.${n}.pruned.first.us`, `read.${n}.pruned.next.us`, `verify.${n}.pruned.rate`]);
  }, 120_000);
});
