// The Appender's one signing timer (pacing.ts says how long to wait): a sooner wake-up replaces a
// later one; a later one leaves the armed timer in place.
export class SignTimer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the armed timer fires (monotonic ms). */
  private due: number | undefined;

  /** Run `f` `wait` ms after `now`, unless a timer that fires no later is armed already. */
  arm(now: number, wait: number, f: () => void): void {
    // A caller that wants the signature may arrive while a longer (durable-only) wait is armed.
    const due = now + wait;
    if (this.timer && this.due !== undefined && this.due <= due) return;
    if (this.timer) clearTimeout(this.timer);
    this.due = due;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.due = undefined;
      f();
    }, wait);
  }

  /** Cancel the armed timer (close: nothing signs after it; the timer stays marked armed). */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
  }
}
