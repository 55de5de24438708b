import Database from 'better-sqlite3';
import zlib from 'node:zlib';
const db = new Database('/tmp/vouch-bench-startup-cache/v3-n10000/data/logs/default.db', { readonly: true });
const dict = db.prepare('select bytes from entry_dictionaries where id=1').get().bytes;
const rows = db.prepare('select bytes from entries where codec=1').all().map(r => r.bytes);
const N = rows.length;
function bench(name, f) { for (let r = 0; r < 3; r++) { const t = performance.now(); let tot = 0; for (const b of rows) tot += f(b).length; const us = (performance.now() - t) * 1000 / N; if (r==2) console.log(name, us.toFixed(2), 'us/row', tot / N); } }
bench('inflateRawSync', (b) => zlib.inflateRawSync(b, { dictionary: dict, maxOutputLength: 4 << 20 }));
for (const cs of [1024, 2048, 4096]) bench('chunk ' + cs, (b) => zlib.inflateRawSync(b, { dictionary: dict, maxOutputLength: 4 << 20, chunkSize: cs }));
// raw handle
const eng = zlib.createInflateRaw({ dictionary: dict });
const h = eng._handle; const st = eng._writeState; let err = null;
h.onerror = (m, e) => { err = m; };
const out = Buffer.allocUnsafe(1 << 16);
bench('handle', (b) => { h.writeSync(zlib.constants.Z_FINISH, b, 0, b.length, out, 0, out.length); if (err) throw new Error(err); const n = out.length - st[0]; const r = Buffer.from(out.subarray(0, n)); h.reset(); return r; });
const ref = rows.map(b => zlib.inflateRawSync(b, { dictionary: dict }));
console.log('handle same', rows.every((b, i) => { h.writeSync(zlib.constants.Z_FINISH, b, 0, b.length, out, 0, out.length); const n = out.length - st[0]; const ok = out.subarray(0, n).equals(ref[i]); h.reset(); return ok; }));
