// A tar stream as bundle files, for every reader of an untrusted .tar.gz (CLI and browser): the
// names a bundle has, with `./` prefixes and one wrapping directory (`tar czf b.tar.gz b/`)
// removed; a path outside the bundle or a file given twice refused; anything else listed as unknown.
// Links, devices and fifos are refused by readTar itself. Portable.
import { InputError } from '../errors.js';
import { BUNDLE_DIRS, isBundleFile } from './bundle-format.js';
import { readTar, type TarItem } from './tar.js';

export type BundleTarEntry = { name: string; item: TarItem } | { unknown: string };

const refused = (name: string, what: string) => new InputError('ERR_BUNDLE_FILE', `bundle refused: ${JSON.stringify(name)} is ${what}`);
const isDir = (name: string) => (BUNDLE_DIRS as readonly string[]).includes(name);

export async function* bundleTarEntries(chunks: AsyncIterable<Uint8Array>, maxFiles: number): AsyncGenerator<BundleTarEntry> {
  const seen = new Set<string>();
  let prefix: string | undefined;
  // pax headers are entries of their own: room for one per file.
  for await (const item of readTar(chunks, { maxEntries: 2 * maxFiles + 16 })) {
    if (seen.size >= maxFiles) throw new InputError('ERR_BUNDLE_LIMIT', `bundle refused: more than ${maxFiles} files`);
    let name = item.name;
    if (name.startsWith('/') || name.split('/').includes('..') || name.includes('\\')) throw refused(name, 'a path outside the bundle');
    name = name.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
    if (name === '' || name === '.') continue;
    if (prefix === undefined) {
      // The first entry decides: a directory or a path whose top is not a bundle directory wraps the bundle.
      const top = name.split('/')[0];
      prefix = (item.type === 'directory' || name.includes('/')) && !isDir(top) ? `${top}/` : '';
      if (prefix && name === top) continue;
    }
    if (prefix) {
      if (!name.startsWith(prefix)) {
        seen.add(`\0${name}`);
        yield { unknown: item.type === 'directory' ? `${name}/` : name };
        continue;
      }
      name = name.slice(prefix.length).replace(/^(\.\/)+/, '');
    }
    if (seen.has(name)) throw refused(name, 'in the archive twice (which copy counts would depend on the tool)');
    seen.add(name);
    if (item.type === 'directory') {
      if (!isDir(name)) yield { unknown: `${name}/` };
      continue;
    }
    if (!isBundleFile(name)) yield { unknown: name };
    else yield { name, item };
  }
}

/**
 * A bundle archive read whole into memory (the browser console), within the same caps as the
 * CLI: `maxTotal` bounds what is kept. Returns the bundle's files and what the format lacks.
 */
export async function collectBundleTar(chunks: AsyncIterable<Uint8Array>, lim: { maxFiles: number; maxTotal: number }): Promise<{ files: Map<string, Uint8Array>; unknown: string[] }> {
  const files = new Map<string, Uint8Array>();
  const unknown: string[] = [];
  let total = 0;
  for await (const e of bundleTarEntries(chunks, lim.maxFiles)) {
    if ('unknown' in e) {
      unknown.push(e.unknown);
      continue;
    }
    total += e.item.size;
    if (total > lim.maxTotal) throw new InputError('ERR_BUNDLE_LIMIT', `bundle refused: its files hold more than ${lim.maxTotal} bytes`);
    // Chunks first, one copy at the end: a declared size is not memory until the bytes arrive.
    const parts: Uint8Array[] = [];
    for await (const c of e.item.body) parts.push(c);
    const bytes = new Uint8Array(e.item.size);
    let at = 0;
    for (const c of parts) bytes.set(c, (at += c.length) - c.length);
    files.set(e.name, bytes);
  }
  return { files, unknown: unknown.sort() };
}
