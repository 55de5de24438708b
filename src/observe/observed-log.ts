// A log port that tells an observer (telemetry export) about each entry once it is durable:
// after the append resolves, never before, and an observer's failure never reaches the writer.
import type { LogPort } from '../store/log-port.js';

export type EntryObserver = (e: { tenant: string; seq: number; leaf: Uint8Array; bytes: Uint8Array }) => void;

export function observedLog(port: LogPort, tenant: string, observe: EntryObserver | undefined): LogPort {
  if (!observe) return port;
  return {
    ...port,
    append: async (body, attachments) => {
      const a = await port.append(body, attachments);
      try {
        observe({ tenant, seq: a.seq, leaf: a.leaf, bytes: a.bytes });
      } catch {
        /* telemetry never fails what was recorded */
      }
      return a;
    },
    appendDurable:
      port.appendDurable &&
      (async (body, attachments, opts) => {
        const d = await port.appendDurable!(body, attachments, opts);
        try {
          observe({ tenant, seq: d.seq, leaf: d.leaf, bytes: d.bytes });
        } catch {
          /* telemetry never fails what was recorded */
        }
        return d;
      }),
  };
}
