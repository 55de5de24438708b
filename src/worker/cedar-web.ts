// The Cedar engine for workerd: the `web` build of @cedar-policy/cedar-wasm, initialized
// synchronously from the wasm module wrangler bundles (rule: CompiledWasm). The Workers build
// aliases '@cedar-policy/cedar-wasm/nodejs' to this file (wrangler.toml [alias], and
// vitest.workers.config.ts), so src/policy/cedar-engine.ts and every caller run unchanged and
// the same Cedar version decides on Node and at the edge. The nodejs build reads its .wasm
// with node:fs, which workerd does not have.
import { initSync } from '@cedar-policy/cedar-wasm/web';
import type * as NodeCedar from '@cedar-policy/cedar-wasm/nodejs';
import type * as WebCedar from '@cedar-policy/cedar-wasm/web';
// A CompiledWasm module's default export is the WebAssembly.Module. Imported as a namespace
// because TypeScript would type a default import from the package's own .wasm.d.ts.
import * as cedarWasm from '../../node_modules/@cedar-policy/cedar-wasm/web/cedar_wasm_bg.wasm';

initSync({ module: (cedarWasm as unknown as { default: WebAssembly.Module }).default });

export * from '@cedar-policy/cedar-wasm/web';

/** Compile-time check: the web build exports everything the nodejs build does. */
type Missing = Exclude<keyof typeof NodeCedar, keyof typeof WebCedar>;
export const CEDAR_WEB_COVERS_NODE: [Missing] extends [never] ? true : never = true;
