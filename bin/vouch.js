#!/usr/bin/env node
// vouch's command line. The sources are TypeScript run through tsx, so a fresh clone needs no build.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
