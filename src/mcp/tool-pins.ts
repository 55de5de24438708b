// Pinned tool definitions (issue 20 part 2, against "rug pulls"): the digest of each upstream tool
// definition is pinned the first time it is seen (or from config); a definition that later differs is
// hidden from tools/list and its calls are denied until its new digest is approved. Every first
// sight, change and approval is a signed `pin` entry: pin state is derived from those entries only.
// A first sight or change keeps the definition itself as the entry's payload, under the pin's digest
// (what `vouch tools list` shows beside the pinned one before an approval).
import { recordedLabel } from '../interceptors/builtin/recorded-text.js';
import { canonicalBytes, digestBytes, isDigest, parseJson, utf8, type Digest } from '../canonical/index.js';
import type { Guard } from '../decide/index.js';
import { ConfigError, InputError } from '../errors.js';
import type { Json } from '../interceptors/types.js';
import { committedRows, type Attachment, type EntryBody, type LogStorage } from '../log/index.js';
import { applyPinEntry, pinEntryBody, toolDefinition, toolDigest, type PinAction, type PinFact, type PinState } from '../entries/index.js';

export { applyPinEntry, toolDefinition, toolDigest, type PinState } from '../entries/index.js';

export const PIN_GUARD = 'tool-pin';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The definition's JCS bytes as a payload under its digest (the pin entry's `digest`). */
function definitionPayload(tool: Rec): Attachment {
  const bytes = canonicalBytes(toolDefinition(tool));
  return { digest: digestBytes(bytes), bytes };
}

/** `tools: { pinning: false | true, pins: { "server/tool": "sha256:..." } }` from a chain config. */
export interface ToolsConfig {
  pinning: boolean;
  pins: Record<string, Digest>;
}

export function parseToolsConfig(v: Json | undefined): ToolsConfig {
  if (v === undefined) return { pinning: true, pins: {} };
  const issues: { path: string; message: string }[] = [];
  if (!isRec(v)) throw new ConfigError('ERR_CONFIG', 'invalid config: /tools must be an object', [{ path: '/tools', message: 'an object' }]);
  for (const k of Object.keys(v)) if (k !== 'pinning' && k !== 'pins') issues.push({ path: `/tools/${k}`, message: 'unknown key (pinning, pins)' });
  if (v.pinning !== undefined && typeof v.pinning !== 'boolean') issues.push({ path: '/tools/pinning', message: 'true or false' });
  const pins: Record<string, Digest> = {};
  if (v.pins !== undefined && !isRec(v.pins)) issues.push({ path: '/tools/pins', message: 'an object of "server/tool": "sha256:..."' });
  else
    for (const [k, d] of Object.entries((v.pins ?? {}) as Rec)) {
      if (!/^[^/]+\/.+$/.test(k)) issues.push({ path: `/tools/pins/${k}`, message: 'key must be SERVER/TOOL' });
      else if (!isDigest(d)) issues.push({ path: `/tools/pins/${k}`, message: 'a sha256:<64 hex> digest' });
      else pins[k] = d;
    }
  if (issues.length) throw new ConfigError('ERR_CONFIG', `invalid config:\n${issues.map((i) => `  ${i.path}: ${i.message}`).join('\n')}`, issues);
  return { pinning: v.pinning !== false, pins };
}

/** What reading pin state needs of a log's store (every LogStore fits). */
export type EntrySource = Pick<LogStorage, 'size' | 'entry' | 'entries' | 'node' | 'latestCheckpoint'> & {
  /** Optional index: only the pin entries, in seq order (checked against the signed heads, never trusted). */
  pinEntries?(): Iterable<{ seq: number; bytes: Uint8Array }>;
};

/**
 * Pin state from the log's entries: exactly the `pin` entries the signed log commits to (through the
 * store's pin index when it has one: an index that hides a row is refused, ERR_STORE_INCONSISTENT).
 */
export function readPins(store: EntrySource): Map<string, PinState> {
  const state = new Map<string, PinState>();
  for (const { seq, bytes } of committedRows(store, 'pin', store.pinEntries?.())) applyPinEntry(state, parseJson(utf8.decode(bytes)) as Rec, seq);
  return state;
}

export interface PinLog {
  append(body: EntryBody, attachments?: Attachment[]): Promise<{ seq: number }>;
}

export interface PinVerdict {
  tool: string;
  pinned?: Digest;
  current?: Digest;
  deny?: string;
}

/**
 * The pins of one upstream server. Appends are serialized, so two sessions seeing the same new tool
 * record one first sight, and a change is recorded once per (pinned, new) pair.
 */
export class ToolPins {
  private queue: Promise<unknown> = Promise.resolve();
  constructor(
    readonly server: string,
    private readonly log: PinLog,
    private readonly state: Map<string, PinState>,
    private readonly now: () => string,
  ) {}

  pins(): Map<string, PinState> {
    return new Map([...this.state].filter(([k]) => k.startsWith(`${this.server}/`)));
  }

  /** Pins are kept by the tool's name as a pin entry records it (a recorded label: no credential an upstream put in a name). */
  get(tool: string): PinState | undefined {
    return this.state.get(`${this.server}/${recordedLabel(tool)}`);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** `definition`: the tool as listed, kept as the entry's payload (first sight and change). */
  private async record(f: Omit<PinFact, 'server'>, definition?: Rec): Promise<void> {
    const fact = { ...f, tool: recordedLabel(f.tool), server: this.server };
    const { seq } = await this.log.append(pinEntryBody(fact, this.now()), definition ? [definitionPayload(definition)] : []);
    applyPinEntry(this.state, { type: 'pin', ...fact }, seq);
  }

  /** Config pins: recorded (`configured`) when the log does not already pin that digest. */
  configure(pins: Record<string, Digest>): Promise<void> {
    return this.serial(async () => {
      for (const [key, digest] of Object.entries(pins)) {
        const [server, ...rest] = key.split('/');
        if (server !== this.server) continue;
        const tool = rest.join('/');
        if (this.get(tool)?.pinned !== digest) await this.record({ tool, action: 'configured', digest, by: 'config' });
      }
    });
  }

  /** Record first sights and changes of a listing; the verdict of each tool. */
  observe(tools: Rec[], session?: string): Promise<PinVerdict[]> {
    return this.serial(async () => {
      const out: PinVerdict[] = [];
      for (const t of tools) {
        if (typeof t.name !== 'string') {
          out.push({ tool: String(t.name), deny: 'a tool definition without a name' });
          continue;
        }
        const current = toolDigest(t);
        const pin = this.get(t.name);
        if (!pin) {
          await this.record({ tool: t.name, action: 'first-seen', digest: current, session }, t);
          out.push({ tool: t.name, pinned: current, current });
        } else if (pin.pinned === current) out.push({ tool: t.name, pinned: current, current });
        else {
          if (pin.pending !== current) await this.record({ tool: t.name, action: 'changed', digest: current, pinned: pin.pinned, session }, t);
          out.push({ tool: t.name, pinned: pin.pinned, current, deny: changedReason(this.server, t.name, pin.pinned, current) });
        }
      }
      return out;
    });
  }

  approve(tool: string, digest: Digest, by: string): Promise<number> {
    return this.serial(async () => {
      await this.record({ tool, action: 'approved', digest, by });
      return this.get(tool)!.seq;
    });
  }
}

export function changedReason(server: string, name: string, pinned: Digest, current: Digest): string {
  const tool = recordedLabel(name);
  return `tool ${server}/${tool} changed its definition: pinned ${pinned}, now ${current}; approve it with \`vouch tools approve ${server} ${tool} ${current} --data DIR\` (the gateway's data directory, and --tenant if not default; the gateway must be stopped, or use its POST /v1/tools/approve)`;
}

/**
 * One session's view: the definitions of the newest listing it relayed (re-listed from the upstream
 * when a call names a tool not in it, or after tools/list_changed), checked against the pins.
 */
export class SessionPins {
  /** Tool name -> digest of its definition in the newest listing this session saw. */
  private current = new Map<string, Digest>();
  private stale = true;
  constructor(
    private readonly pins: ToolPins,
    private readonly listUpstream: () => Promise<Rec[]>,
    private readonly session?: string,
  ) {}

  invalidate(): void {
    this.stale = true;
  }

  /** Tool name -> its declared outputSchema (null: none), from the newest listing: for the provenance enricher. */
  private schemas = new Map<string, Json | null>();

  /** The output schema the tool declared in the newest listing (null: none), undefined when not listed. */
  outputSchemaOf(name: string): Json | null | undefined {
    return this.schemas.get(name);
  }

  private keepSchemas(tools: Rec[], replace: boolean): void {
    if (replace) this.schemas = new Map();
    for (const t of tools) if (typeof t.name === 'string') this.schemas.set(t.name, isRec(t.outputSchema) ? (t.outputSchema as Json) : null);
  }

  private learn(verdicts: PinVerdict[], replace: boolean): void {
    if (replace) this.current = new Map();
    for (const v of verdicts) if (v.current) this.current.set(v.tool, v.current);
  }

  /** A tools/list result: the tools whose definitions match their pins, and the guard recording what was hidden. */
  async filterList(result: Rec): Promise<{ result: Rec; guards: Guard[] }> {
    const tools = Array.isArray(result.tools) ? (result.tools as unknown[]).filter(isRec) : [];
    const verdicts = await this.pins.observe(tools, this.session);
    this.learn(verdicts, false);
    this.keepSchemas(tools, false);
    const hidden = verdicts.filter((v) => v.deny !== undefined);
    if (!hidden.length) return { result, guards: [] };
    const names = new Set(hidden.map((v) => v.tool));
    const record = { hidden: hidden.map((v) => ({ tool: v.tool, pinned: v.pinned ?? null, current: v.current ?? null })) } as unknown as Record<string, Json>;
    return { result: { ...result, tools: tools.filter((t) => !names.has(t.name as string)) }, guards: [{ name: PIN_GUARD, record }] };
  }

  /** The guard of a tools/call request: the definition it is made under, or a deny naming both digests. */
  async callGuard(params: Rec): Promise<Guard> {
    const name = params.name;
    if (typeof name !== 'string') return { name: PIN_GUARD, record: {}, deny: 'tools/call without a tool name' };
    if (this.stale || !this.current.has(name)) {
      const tools = await this.listUpstream();
      this.learn(await this.pins.observe(tools, this.session), true);
      this.keepSchemas(tools, true);
      this.stale = false;
    }
    const current = this.current.get(name);
    if (!current) return { name: PIN_GUARD, record: { tool: name }, deny: `tool ${this.pins.server}/${recordedLabel(name)} is not in the server's tools/list: it has no pinned definition` };
    // Judged against the pin now (an approval made since the listing counts).
    const pinned = this.pins.get(name)?.pinned;
    const record: Record<string, Json> = { tool: name, pinned: pinned ?? null, current };
    if (pinned === current) return { name: PIN_GUARD, record };
    return { name: PIN_GUARD, record, deny: pinned ? changedReason(this.pins.server, name, pinned, current) : `tool ${this.pins.server}/${recordedLabel(name)} has no pin` };
  }
}
