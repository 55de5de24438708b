// NODE-ONLY: the MCP stdio client transport the gateway reaches a command upstream with: the SDK's
// framing (one JSON-RPC message a line), over a process started and stopped whole by
// upstream-process.ts (its own process group), so closing it leaves nothing of the upstream running.
import type { IOType } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { startUpstreamProcess, type UpstreamProcess } from './upstream-process.js';

export interface UpstreamStdioParams {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  stderr?: IOType;
}

export class UpstreamStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private proc?: UpstreamProcess;
  private readonly buffer = new ReadBuffer();

  constructor(private readonly params: UpstreamStdioParams) {}

  /**
   * The SDK v2 client probes a stdio server's era (`server/discover`) on a disposable sibling it
   * builds from these, so the probe never spends the session's one process life; a transport
   * that does not own `_dispose` and expose `_serverParams` is probed in place instead.
   */
  get _serverParams(): UpstreamStdioParams {
    return this.params;
  }

  /** The sibling's reaper: its whole process group, as close() does. */
  async _dispose(): Promise<void> {
    await this.close();
  }

  /** The upstream's stderr when piped (null otherwise, or before start). */
  get stderr(): NodeJS.ReadableStream | null {
    return this.proc?.child.stderr ?? null;
  }

  /** The upstream's process id (its process group's id too) once started. */
  get pid(): number | null {
    return this.proc?.child.pid ?? null;
  }

  async start(): Promise<void> {
    if (this.proc) throw new Error('UpstreamStdioTransport already started');
    const proc = (this.proc = startUpstreamProcess(this.params));
    const { child } = proc;
    child.on('error', (e) => this.onerror?.(e));
    child.stdin?.on('error', (e) => this.onerror?.(e));
    child.stdout?.on('error', (e) => this.onerror?.(e));
    child.stdout?.on('data', (chunk: Buffer) => {
      try {
        this.buffer.append(chunk);
      } catch (e) {
        // Past the read buffer's bound: the transport closes (as the SDK's stdio client does).
        this.onerror?.(e as Error);
        void this.close();
        return;
      }
      this.drain();
    });
    void proc.closed.then(() => {
      this.buffer.clear();
      this.onclose?.();
    });
    await proc.started;
  }

  /** Every whole line read so far; a line that is not a JSON-RPC message is an error, and the next is read. */
  private drain(): void {
    for (;;) {
      let m: JSONRPCMessage | null;
      try {
        m = this.buffer.readMessage();
      } catch (e) {
        this.onerror?.(e as Error);
        continue;
      }
      if (m === null) return;
      this.onmessage?.(m);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.proc?.child.stdin;
    if (!stdin || stdin.destroyed || stdin.writableEnded) return Promise.reject(new Error('Not connected'));
    return new Promise((resolve) => (stdin.write(serializeMessage(message)) ? resolve() : stdin.once('drain', resolve)));
  }

  async close(): Promise<void> {
    await this.proc?.stop();
    this.buffer.clear();
  }
}
