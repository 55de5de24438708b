// Which parts of a request's `context` a policy set can observe, read off each policy's JSON form
// (the engine's EST), and the projection of a context onto them. Cedar reads a record only
// through `.attr` and `has attr`; any other use of a context value (==, like, contains, a method,
// an extension call, an if-then-else branch) sees that value whole. So a context cut down to the
// paths the policies read evaluates the same: the same policies are satisfied, and the same ones
// fail. An error's text can differ (Cedar may list a record's other attributes), so a caller
// evaluates again with the whole context whenever the cut one gives an error (policy-set.ts).
// Anything this does not recognise counts as a whole use: it can only cut less.
import { isPlainObject as isObject, setMember } from '../canonical/index.js';
import type { CedarValue } from './cedar-values.js';

/** A node of the paths read: `whole` keeps the value as it is; else only the named attributes. */
export interface ContextNeeds {
  whole: boolean;
  attrs: Map<string, ContextNeeds>;
}

function node(): ContextNeeds {
  return { whole: false, attrs: new Map() };
}

/** An expression of the EST is an object with one key, the operator. */
function only(e: unknown, key: string): unknown {
  if (!isObject(e)) return undefined;
  const keys = Object.keys(e);
  return keys.length === 1 && keys[0] === key ? e[key] : undefined;
}

/** `context` followed by attribute accesses, as the path of attribute names; else undefined. */
function contextPath(e: unknown): string[] | undefined {
  if (only(e, 'Var') === 'context') return [];
  const dot = only(e, '.');
  if (!isObject(dot) || typeof dot.attr !== 'string') return undefined;
  const left = contextPath(dot.left);
  return left && [...left, dot.attr];
}

function mark(root: ContextNeeds, path: string[]): void {
  let at = root;
  for (const name of path) {
    if (at.whole) return;
    let next = at.attrs.get(name);
    if (!next) at.attrs.set(name, (next = node()));
    at = next;
  }
  at.whole = true;
  at.attrs.clear();
}

/** Every place an expression tree reads the context, marked in `root`. */
function visit(e: unknown, root: ContextNeeds): void {
  if (Array.isArray(e)) {
    for (const x of e) visit(x, root);
    return;
  }
  if (!isObject(e)) return;
  // A maximal `context.a.b`: its parent uses it as a value (an access or `has` below stops first).
  const path = contextPath(e);
  if (path) return mark(root, path);
  const has = only(e, 'has');
  if (isObject(has)) {
    const left = contextPath(has.left);
    // `has a` or `has a.b.c` (Cedar 4's form): the value at the first name is kept whole.
    const first = typeof has.attr === 'string' ? has.attr : Array.isArray(has.attr) && typeof has.attr[0] === 'string' ? has.attr[0] : undefined;
    if (left && first !== undefined) return mark(root, [...left, first]);
  }
  for (const v of Object.values(e)) visit(v, root);
}

/** The context paths one policy's EST reads, added to `root` (start with `emptyNeeds()`). */
export function addPolicyNeeds(root: ContextNeeds, est: unknown): void {
  // Scope constraints never name `context`; the whole policy is searched all the same.
  visit(est, root);
}

export function emptyNeeds(): ContextNeeds {
  return node();
}

/** The value cut down to `needs`. A value that is not a record is kept whole: Cedar reads it whole or fails on it. */
export function projectContext(value: { [k: string]: CedarValue }, needs: ContextNeeds): { [k: string]: CedarValue } {
  if (needs.whole) return value;
  const out: { [k: string]: CedarValue } = {};
  for (const [name, sub] of needs.attrs) {
    if (!Object.hasOwn(value, name)) continue;
    const v = value[name];
    setMember(out, name, sub.whole || !isObject(v) ? v : projectContext(v as { [k: string]: CedarValue }, sub));
  }
  return out;
}
