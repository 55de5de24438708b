// What changed between a pinned tool definition and the one awaiting approval (issue 37): every
// JSON Pointer where they differ, with the value before and after, and the same as terminal text.
// The definitions come from a hostile upstream, so text shows what a terminal would hide or reorder
// (controls, bidi overrides, zero-width characters) as escapes, never as the characters.
import { diffJson } from '../audit/diff.js';
import type { Json } from '../interceptors/types.js';

/** One difference; `before` or `after` absent: the member is not there on that side. */
export interface DefinitionChange {
  path: string;
  before?: Json;
  after?: Json;
}

const MAX_CHANGES = 50;

function unescapeSegment(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~'); // RFC 6901 section 4
}

/** The value at an RFC 6901 pointer, or `undefined` when there is none. */
function valueAt(doc: unknown, pointer: string): Json | undefined {
  let v: unknown = doc;
  for (const seg of pointer.split('/').slice(1).map(unescapeSegment)) {
    if (Array.isArray(v) && /^(0|[1-9][0-9]*)$/.test(seg)) v = v[Number(seg)];
    else if (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.hasOwn(v, seg)) v = (v as Record<string, unknown>)[seg];
    else return undefined;
  }
  return v as Json | undefined;
}

/** Where the two definitions differ, in key order (at most 50 paths: a rewrite of everything is not listed leaf by leaf). */
export function diffDefinitions(pinned: Json, pending: Json): DefinitionChange[] {
  return diffJson(pinned, pending, '', MAX_CHANGES).map((path) => {
    const before = valueAt(pinned, path);
    const after = valueAt(pending, path);
    return { path, ...(before !== undefined && { before }), ...(after !== undefined && { after }) };
  });
}

// JSON.stringify escapes C0 controls and lone surrogates; these are the rest a terminal would act
// on or not show: DEL and C1 controls (an ANSI CSI is \u009b), format characters (bidi overrides
// and isolates, zero-width spaces and joiners, the BOM, tag characters), line and paragraph separators.
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** A JSON value as one line of terminal-safe text. */
export function visibleJson(v: Json): string {
  return JSON.stringify(v).replace(HIDDEN, (c) => {
    const cp = c.codePointAt(0)!;
    // Tag characters (U+E0000 block, Cf) can spell hidden ASCII: astral ones as \u{...}.
    return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`;
  });
}

/** The changes as text lines: the path, then `- before` and `+ after`. */
export function formatDefinitionChanges(changes: DefinitionChange[], indent = '    '): string[] {
  const lines: string[] = [];
  for (const c of changes) {
    lines.push(`${indent}${visibleJson(c.path).slice(1, -1)}`); // the pointer's text, without JSON's quotes
    if (c.before !== undefined) lines.push(`${indent}  - ${visibleJson(c.before)}`);
    if (c.after !== undefined) lines.push(`${indent}  + ${visibleJson(c.after)}`);
  }
  if (changes.length >= MAX_CHANGES) lines.push(`${indent}(first ${MAX_CHANGES} differences only)`);
  return lines;
}
