// The log's witness configuration (`vouch serve --witnesses FILE`), parsed strictly:
//   {"witnesses": [{"url": "https://w.example/prefix", "vkeys": ["<name>+<id>+<key>", ...]}],
//    "timeoutMs": 5000, "retries": 3, "intervalMs": 1000}
// Portable.
import { ConfigError, type Issue } from '../errors.js';
import type { WitnessEndpoint } from './submitter.js';
import { parseCosignerVkey } from './vkey.js';

export interface WitnessingConfig {
  witnesses: WitnessEndpoint[];
  timeoutMs: number;
  retries: number;
  intervalMs: number;
}

const KNOWN = new Set(['witnesses', 'timeoutMs', 'retries', 'intervalMs']);

export function parseWitnessingConfig(doc: unknown): WitnessingConfig {
  const issues: Issue[] = [];
  const bad = (path: string, message: string) => issues.push({ path, message });
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new ConfigError('ERR_CONFIG', 'witness config must be a JSON object');
  const o = doc as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!KNOWN.has(k)) bad(`/${k}`, 'unknown member');
  const int = (k: string, dflt: number, min: number, max: number): number => {
    const v = o[k] ?? dflt;
    if (!Number.isSafeInteger(v) || (v as number) < min || (v as number) > max) bad(`/${k}`, `must be an integer in ${min}..${max}`);
    return v as number;
  };
  const witnesses: WitnessEndpoint[] = [];
  if (!Array.isArray(o.witnesses)) bad('/witnesses', 'must be an array');
  else
    o.witnesses.forEach((w: unknown, i) => {
      const at = `/witnesses/${i}`;
      const e = (w ?? {}) as Record<string, unknown>;
      let url: URL | undefined;
      try {
        url = new URL(e.url as string);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
      } catch {
        bad(`${at}/url`, 'must be an http(s) URL (the submission prefix)');
      }
      const keys = Array.isArray(e.vkeys) ? e.vkeys.flatMap((v, j) => {
        try {
          return [parseCosignerVkey(v as string)];
        } catch (err) {
          bad(`${at}/vkeys/${j}`, (err as Error).message);
          return [];
        }
      }) : (bad(`${at}/vkeys`, 'must be an array of cosigner vkeys'), []);
      const names = [...new Set(keys.map((k) => k.name))];
      if (keys.length > 0 && names.length !== 1) bad(`${at}/vkeys`, 'all keys of one witness must carry its one name');
      if (url && names.length === 1) witnesses.push({ name: names[0], url: url.href.replace(/\/$/, ''), keys });
    });
  const names = witnesses.map((w) => w.name);
  if (new Set(names).size !== names.length) bad('/witnesses', 'two witnesses share a name');
  const cfg = { witnesses, timeoutMs: int('timeoutMs', 5000, 100, 60_000), retries: int('retries', 3, 0, 10), intervalMs: int('intervalMs', 1000, 50, 600_000) };
  if (issues.length) throw new ConfigError('ERR_CONFIG', `bad witness config: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  return cfg;
}
