import Database from 'better-sqlite3';
import zlib from 'node:zlib';
const db = new Database('/tmp/vouch-bench-startup-cache/v3-n10000/data/logs/default.db', { readonly: true });
const dict = db.prepare('select bytes from entry_dictionaries where id=1').get().bytes;
const rows = db.prepare('select bytes from entries where codec=1').all().map(r => r.bytes);
const N = rows.length;
function bench(name, f) { for (let r = 0; r < 2; r++) { const t = performance.now(); let tot = 0; for (const b of rows) tot += f(b).length; const us = (performance.now() - t) * 1000 / N; if (r) console.log(name, us.toFixed(2), 'us/row', tot / N); } }
bench('inflateRawSync', (b) => zlib.inflateRawSync(b, { dictionary: dict, maxOutputLength: 4 << 20 }));


const { inflateSync } = await import('/tmp/fb/node_modules/fflate/esm/index.mjs');
const pako = (await import('/tmp/fb/node_modules/pako/dist/pako.esm.mjs'));
bench('fflate', (b) => inflateSync(b, { dictionary: dict }));
bench('pako', (b) => pako.inflateRaw(b, { dictionary: dict }));
const ref = rows.map(b => zlib.inflateRawSync(b, { dictionary: dict }));
let same = rows.every((b, i) => Buffer.from(inflateSync(b, { dictionary: dict })).equals(ref[i]));
console.log('fflate same', same);
