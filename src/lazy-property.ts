// Objects made on the decision path with one property read from a function at each read (an
// AbortSignal made only if asked for, a receipt built only for a caller that waits for it). Not an
// object literal's `get x() {}`, nor a property defined on each object: V8 gives such objects
// hidden classes of their own, which live in the old generation and held the getter's closure
// (and the whole scope it closes over) through every scavenge until a mark-compact. Measured: a
// tenth of a decision's allocation promoted, a mark-compact every few thousand decisions, each
// holding back a wave of answers. Here the getter sits on a class's prototype, one class per
// property name, and the function in a private field: the objects share a hidden class and die
// young. The property is not own: `{...obj}` and `Object.keys` leave it out.
type Reader = new (fields: object, source: () => unknown) => object;

const classes = new Map<string, Reader>();

function classFor(key: string): Reader {
  let C = classes.get(key);
  if (C === undefined) {
    class Read {
      readonly #source: () => unknown;
      constructor(fields: object, source: () => unknown) {
        Object.assign(this, fields);
        this.#source = source;
      }
      static read(o: Read): unknown {
        return o.#source();
      }
    }
    Object.defineProperty(Read.prototype, key, {
      configurable: true,
      get(this: Read) {
        return Read.read(this);
      },
    });
    classes.set(key, (C = Read));
  }
  return C;
}

/** `fields` (copied, own and enumerable) plus `key`, read from `source()` at each read (which may memoize). */
export function withRead<T extends object, K extends string, V>(fields: T, key: K, source: () => V): T & { readonly [P in K]: V } {
  return new (classFor(key))(fields, source) as T & { readonly [P in K]: V };
}
