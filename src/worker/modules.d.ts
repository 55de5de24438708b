// Types for what only the Workers build resolves: `cloudflare:workers`, and the module rules of
// wrangler.toml (migrations/*.sql as Text, the Cedar .wasm as CompiledWasm). The main tsconfig
// type-checks src/worker with Node types, so the few Workers types used come from here.
declare module 'cloudflare:workers' {
  import type { DurableObjectState } from '@cloudflare/workers-types/index.ts';
  /** Base class of Durable Objects whose public methods are callable over RPC from a stub. */
  export abstract class DurableObject<Env = unknown> {
    protected readonly ctx: DurableObjectState;
    protected readonly env: Env;
    constructor(ctx: DurableObjectState, env: Env);
  }
}

declare module '*.sql' {
  const text: string;
  export default text;
}

declare module '*.wasm' {
  const module: WebAssembly.Module;
  export default module;
}
