// Offline check of an audit bundle in the browser: drop a .tar.gz (as GET /v1/export and
// `vouch export` write it) or the bundle's files, and the portable verifyBundle from src/audit
// checks manifest, keys, checkpoint signature, range, every entry, link and leaf, and the root.
// Decisions are not replayed here (Cedar is not loaded in the page; see cedar-stub.ts). Checked
// against the service's keys, or opened from a file the keys the auditor pinned (pinned-keys.ts).
import { collectBundleTar, DEFAULT_BUNDLE_LIMITS, isBundleFile, verifyBundle, type BundleReader, type BundleReport } from '../../src/audit/index.js';
import { describeSignature } from '../../src/log/index.js';
import { h, replaceChildren } from './dom.js';
import { loadTrust } from './trust.js';
import { isOffline } from './api.js';
import { witnessInputs } from './witness-policy.js';

async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  for (;;) {
    const r = await reader.read();
    if (r.done) return;
    yield r.value;
  }
}

/** What the page reads of one archive, in bytes (the CLI streams and needs no such cap). */
export const CONSOLE_MAX_TOTAL = 192 << 20;

/** The files of a dropped bundle by path (a leading folder, as in `tar -C`, is stripped). */
export async function filesOf(list: File[]): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  for (const f of list) {
    if (/\.(tar\.gz|tgz)$/i.test(f.name)) {
      const gunzip = f.stream().pipeThrough(new DecompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>);
      // The CLI's names, refusals (links, devices, duplicates, ..) and caps; unknown files kept by name only, to be reported.
      // The page holds the files in memory: at most 192 MiB of them, so a hostile archive stays under 256 MiB (issue 15).
      const inTar = await collectBundleTar(chunksOf(gunzip), { maxFiles: DEFAULT_BUNDLE_LIMITS.maxFiles, maxTotal: CONSOLE_MAX_TOTAL });
      for (const [k, v] of inTar.files) files.set(k, v);
      for (const u of inTar.unknown) files.set(u, new Uint8Array(0));
    } else {
      files.set((f as File & { webkitRelativePath?: string }).webkitRelativePath || f.name, new Uint8Array(await f.arrayBuffer()));
    }
  }
  const manifest = [...files.keys()].find((k) => k === 'manifest.json' || k.endsWith('/manifest.json'));
  const prefix = manifest ? manifest.slice(0, -'manifest.json'.length) : '';
  return new Map([...files].filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v]));
}

/** A BundleReader over files in memory; `onLine` counts entry lines for the progress bar. */
export function memoryReader(files: Map<string, Uint8Array>, onLine: (n: number) => void): BundleReader {
  const dec = new TextDecoder();
  return {
    unknown: [...files.keys()].filter((k) => !isBundleFile(k)).sort(),
    text: async (name) => (files.has(name) ? dec.decode(files.get(name)) : undefined),
    bytes: async (path) => files.get(path),
    lines: (name) => {
      const b = files.get(name);
      if (!b) return undefined;
      return (async function* () {
        let n = 0;
        for (const line of dec.decode(b).split('\n')) {
          if (name === 'entries.jsonl' && ++n % 256 === 0) {
            onLine(n);
            await new Promise((r) => setTimeout(r, 0)); // let the progress bar paint
          }
          yield line;
        }
        if (name === 'entries.jsonl') onLine(n);
      })();
    },
  };
}

/** The pinned (trusted) keys that verified the checkpoint, as verdicts name keys. */
const pinnedBy = (r: BundleReport) => r.signatures.filter((x) => x.source === 'trusted key').map(describeSignature).join(', ');

/** The verdict of `vouch verify BUNDLE`: clean (keys pinned, naming them), self-consistent with keys not pinned, or findings. */
function verdictText(r: BundleReport): string {
  const where = `${r.origin} [${r.range?.from}, ${r.range?.to}), ${r.entries} entries`;
  if (r.verdict === 'findings') return `✗ bundle FAILED: ${[...new Set(r.findings.map((f) => f.check))].join(', ')}`;
  if (r.verdict === 'self-consistent, keys not pinned') return `⚠ bundle self-consistent, keys not pinned: ${where}; only the bundle's own keys vouch for it (truncation: ${r.truncation})`;
  return `✓ bundle verified: ${where}${r.classicalOnly ? ', classical signatures only' : ''} (truncation: ${r.truncation}); keys pinned: ${pinnedBy(r)}`;
}

/** Advice that names a command-line flag is for the CLI; the page opened from a file says it its own way. */
const namesFlag = (s: string) => /(^|[\s(`])--[a-z]/.test(s);

export function renderBundleReport(r: BundleReport): HTMLElement {
  const offline = isOffline();
  const signed = r.signatures.map((x) => `${x.name} (${x.alg} ${x.keyId}, ${x.source})`).join(', ');
  const notes = offline ? r.notes.filter((n) => !namesFlag(n)) : r.notes;
  const keysUsed = r.keysFrom === 'bundle' ? "the bundle's keys" : offline ? "the bundle's keys and the pinned keys" : 'the bundle keys and the trusted key';
  return h('div', { class: `report ${r.ok ? 'pass' : 'fail'}`, id: 'bundle-result', 'data-ok': String(r.ok), 'data-verdict': r.verdict, 'data-truncation': r.truncation },
    h('div', { class: `verdict ${r.verdict === 'clean' ? 'pass' : r.verdict === 'findings' ? 'fail' : 'warn'}` }, verdictText(r)),
    r.verdict === 'self-consistent, keys not pinned' && offline ? h('div', { class: 'warn', id: 'bundle-advice' }, "pin the log's published keys under Trusted keys (from its operator, not from this bundle), then check the bundle again") : null,
    signed ? h('div', { class: 'signed-by' }, `signed by: ${signed}`) : null,
    r.witnessCheck ? h('div', { class: `witnesses ${r.witnessCheck.ok ? 'good' : 'bad'}`, 'data-ok': String(r.witnessCheck.ok) }, `${r.witnessCheck.ok ? '✓' : '✗'} witnesses: ${r.witnessCheck.detail}`) : null,
    h('ul', { class: 'checklist' }, ...r.findings.map((f) => h('li', { class: 'bad' }, `✗ ${f.check}${f.seq !== undefined ? ` #${f.seq}` : ''} ${f.code}: ${f.message}`))),
    h('p', { class: 'muted' }, `checked: manifest, keys, checkpoint signature (${keysUsed}), range, every entry's seq, link and leaf, root${r.truncated ? ' · findings truncated' : ''} · decisions are not replayed in the browser${offline ? '' : ' (use vouch verify)'}`),
    notes.length ? h('ul', {}, ...notes.map((n) => h('li', { class: 'muted' }, n))) : null);
}

export function renderBundlePanel(): HTMLElement {
  const progress = h('progress', { id: 'bundle-progress', max: '1', value: '0' });
  const out = h('div', {});
  // As `vouch verify BUNDLE --witness VKEY --min-witnesses K`: set before the bundle is dropped.
  const witnesses = witnessInputs('bundle-');
  const check = async (list: File[]) => {
    if (!list.length) return;
    let witnessCheck: ReturnType<typeof witnesses.check>;
    try {
      witnessCheck = witnesses.check();
    } catch (e) {
      return replaceChildren(out, h('div', { class: 'verdict fail', id: 'bundle-result', 'data-ok': 'false' }, `✗ cannot read the witness keys: ${(e as Error).message}`));
    }
    replaceChildren(out, 'reading…');
    try {
      const files = await filesOf(list);
      const m = JSON.parse(new TextDecoder().decode(files.get('manifest.json') ?? new Uint8Array())) as { range?: { from: number; to: number } };
      progress.max = Math.max(1, (m.range?.to ?? 0) - (m.range?.from ?? 0));
      // Online the service's keys; opened from a file the pinned ones, if any.
      const trusted = await loadTrust().then((t) => t.trust, () => undefined);
      const report = await verifyBundle(memoryReader(files, (n) => (progress.value = n)), { replay: false, ...(trusted && { trusted }), witnesses: witnessCheck });
      progress.value = progress.max;
      replaceChildren(out, renderBundleReport(report));
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      replaceChildren(out, h('div', { class: 'verdict fail', id: 'bundle-result', 'data-ok': 'false', ...(typeof code === 'string' && { 'data-code': code }) }, `✗ cannot read the bundle: ${typeof code === 'string' ? `${code}: ` : ''}${(e as Error).message}`));
    }
  };
  const input = h('input', { id: 'bundle-file', type: 'file', multiple: true, onchange: (e: Event) => void check(Array.from((e.target as HTMLInputElement).files ?? [])) });
  const zone = h('div', { id: 'drop-zone', class: 'drop' }, 'drop a bundle here (.tar.gz, or its files) or ', input);
  zone.addEventListener('dragover', (e) => e.preventDefault());
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    void check(Array.from(e.dataTransfer?.files ?? []));
  });
  return h('section', { class: 'panel', id: 'bundle-panel' }, h('h3', {}, 'Check a bundle offline'), witnesses.element, zone, progress, out);
}
