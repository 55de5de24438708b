// Vite build of the audit console (web/ -> web/dist), served by the app at /audit. The core's
// portable modules (receipt, log, audit) are bundled as they are; the one Node-only engine
// import (Cedar's `nodejs` build) is swapped for a stub: the page verifies, it does not replay.
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

/** A classic deferred script, so web/dist/index.html also works opened from a file:// URL. */
const classicScript: Plugin = {
  name: 'vouch-classic-script',
  enforce: 'post',
  transformIndexHtml: (html) => html.replace(/<script type="module" crossorigin/g, '<script defer').replace(/ crossorigin/g, ''),
};

export default defineConfig({
  root: fileURLToPath(new URL('./web', import.meta.url)),
  base: './',
  logLevel: 'warn',
  resolve: {
    alias: { '@cedar-policy/cedar-wasm/nodejs': fileURLToPath(new URL('./web/src/cedar-stub.ts', import.meta.url)) },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: false,
    // One stylesheet file (assets/style.css): an iife build would otherwise inject the CSS from
    // script as a <style>, which the console's CSP (no inline style) refuses.
    cssCodeSplit: false,
    chunkSizeWarningLimit: 2048,
    rollupOptions: { output: { format: 'iife', entryFileNames: 'assets/console.js', assetFileNames: 'assets/[name][extname]' } },
  },
  plugins: [classicScript],
});
