// Many tenants in one data directory (issue 40): a tenant's log opens at its first use and closes
// when idle, at most `maxOpen` at once (the least recently used idle one goes first), so file
// handles and memory do not grow with the tenant count. A lease keeps a log open while something
// uses it; a close runs only on a log nobody holds, and a use during a close waits for it, then
// opens the log again (checked like any open). Portable: it knows nothing of SQLite or files.

export interface TenantPoolOptions<T> {
  /** Open (and check) a tenant's log; a rejection is the caller's error, and the next use tries again. */
  open(tenant: string): Promise<T>;
  /** Close it: everything appended before is committed and signed first (DataDir.closeLog). */
  close(tenant: string, opened: T): Promise<void>;
  /** Open logs kept at most (more only while each one is held by a use in flight). */
  maxOpen: number;
  /** Close a log nobody has used this long (milliseconds; 0: only the cap closes logs). */
  idleMs: number;
  /** Monotonic milliseconds. */
  now(): number;
  /** A close that failed (the log stays closed; its next use opens it again). */
  onCloseError?(tenant: string, e: unknown): void;
}

export interface TenantLease<T> {
  value: T;
  /** Idempotent. */
  release(): void;
}

export interface TenantPoolStats {
  /** Logs open (or opening) now. */
  open: number;
  /** Opens since start (reopens included). */
  opens: number;
  /** Closes since start (idle and over the cap). */
  closes: number;
}

interface Slot<T> {
  opening: Promise<T>;
  value?: T;
  leases: number;
  lastUsed: number;
}

export interface TenantPool<T> {
  acquire(tenant: string): Promise<TenantLease<T>>;
  /** Run `f` with the tenant's log held open. */
  use<R>(tenant: string, f: (value: T) => Promise<R> | R): Promise<R>;
  isOpen(tenant: string): boolean;
  stats(): TenantPoolStats;
  /** Close what has been idle `idleMs` (the timer calls it; tests may too). */
  sweep(): Promise<void>;
  /** Start the idle timer. */
  start(): void;
  /** Stop the timer and wait for the closes under way (shutdown closes the rest with the data directory). */
  stop(): Promise<void>;
}

export function createTenantPool<T>(opts: TenantPoolOptions<T>): TenantPool<T> {
  if (!(opts.maxOpen >= 1)) throw new RangeError('maxOpen must be at least 1');
  // Map order is use order: a use moves its slot to the end, so the first idle slot is the least recently used.
  const slots = new Map<string, Slot<T>>();
  const closing = new Map<string, Promise<void>>();
  let opens = 0;
  let closes = 0;
  let timer: ReturnType<typeof setInterval> | undefined;

  const closeSlot = (tenant: string, s: Slot<T>): Promise<void> => {
    slots.delete(tenant);
    closes++;
    const p = opts.close(tenant, s.value as T).then(
      () => undefined,
      (e) => opts.onCloseError?.(tenant, e),
    );
    const done = p.finally(() => closing.delete(tenant));
    closing.set(tenant, done);
    return done;
  };

  /** Over the cap: close idle logs, least recently used first. Held ones stay (the cap is exceeded only by uses in flight). */
  const evict = (): void => {
    let over = slots.size - opts.maxOpen;
    if (over <= 0) return;
    for (const [tenant, s] of slots) {
      if (over <= 0) break;
      if (s.leases === 0 && 'value' in s) {
        void closeSlot(tenant, s);
        over--;
      }
    }
  };

  const acquire = async (tenant: string): Promise<TenantLease<T>> => {
    for (;;) {
      const c = closing.get(tenant);
      if (c) {
        await c; // never rejects (closeSlot reports its error)
        continue;
      }
      let s = slots.get(tenant);
      if (s) slots.delete(tenant);
      else {
        const slot: Slot<T> = { opening: opts.open(tenant), leases: 0, lastUsed: opts.now() };
        opens++;
        slot.opening.then(
          (v) => {
            slot.value = v;
          },
          () => {
            if (slots.get(tenant) === slot) slots.delete(tenant);
          },
        );
        s = slot;
      }
      slots.set(tenant, s);
      s.leases++;
      s.lastUsed = opts.now();
      let value: T;
      try {
        value = await s.opening;
      } catch (e) {
        s.leases--;
        throw e;
      }
      s.value = value;
      evict();
      const held = s;
      let released = false;
      return {
        value,
        release() {
          if (released) return;
          released = true;
          held.leases--;
          held.lastUsed = opts.now();
          evict();
        },
      };
    }
  };

  const sweep = async (): Promise<void> => {
    if (opts.idleMs <= 0) return;
    const now = opts.now();
    const done: Promise<void>[] = [];
    for (const [tenant, s] of slots) if (s.leases === 0 && 'value' in s && now - s.lastUsed >= opts.idleMs) done.push(closeSlot(tenant, s));
    await Promise.all(done);
  };

  return {
    acquire,
    async use(tenant, f) {
      const lease = await acquire(tenant);
      try {
        return await f(lease.value);
      } finally {
        lease.release();
      }
    },
    isOpen: (tenant) => slots.has(tenant),
    stats: () => ({ open: slots.size, opens, closes }),
    sweep,
    start() {
      if (opts.idleMs <= 0 || timer) return;
      // A log idle for idleMs closes within 1.5 x idleMs.
      timer = setInterval(() => void sweep(), Math.max(50, Math.floor(opts.idleMs / 2)));
      timer.unref?.();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await Promise.all([...closing.values()]);
    },
  };
}
