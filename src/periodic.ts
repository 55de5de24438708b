// The timer loop of vouch's background work beside the decisions (the TSA stamper, the witness
// submitter): one round at start, then one every interval, never two at once, and a close that
// waits for the round in flight. What a round does, and how it backs off, is the caller's.

export class PeriodicTask {
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  /** `round` should report its own failures: a rejection is dropped so one bad round never stops the loop. */
  constructor(private readonly round: () => Promise<void>, private readonly everyMs: number) {}

  /** Runs a round now and then every `everyMs`; the timer is unref'd so it never keeps the process alive. */
  start(): void {
    this.timer = setInterval(() => void this.tick(), this.everyMs);
    this.timer.unref?.();
    void this.tick();
  }

  /** One round, or the one already in flight (rounds never overlap); nothing once closed. */
  tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.running ??= this.round().catch(() => undefined).finally(() => (this.running = undefined));
    return this.running;
  }

  /** Resolves when the round in flight, if any, has finished. */
  async idle(): Promise<void> {
    await this.running;
  }

  /** True from the moment close() is called: a long round can check it to stop early. */
  get closed(): boolean {
    return this.stopped;
  }

  /** Stops the timer, refuses new rounds and waits for the one in flight. */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
