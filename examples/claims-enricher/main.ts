// Run the remote claims enricher over an evidence file:
//   node --import tsx examples/claims-enricher/main.ts --evidence FILE [--port 8787] [--host 127.0.0.1] [--name claims-enricher]
// It prints its endpoint on stdout and serves until SIGINT or SIGTERM.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { parseEvidence } from '../../src/enrich/claims.js';
import { startClaimsEnricher } from './server.js';

const USAGE = 'usage: node --import tsx examples/claims-enricher/main.ts --evidence FILE [--port 8787] [--host 127.0.0.1] [--name claims-enricher]';

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ options: { evidence: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, name: { type: 'string' }, help: { type: 'boolean' } } }));
  } catch (e) {
    console.error(`claims-enricher: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) return console.log(USAGE), 0;
  if (!values.evidence) return console.error(`claims-enricher: --evidence FILE is required\n${USAGE}`), 2;
  const port = values.port === undefined ? 8787 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) return console.error(`claims-enricher: --port must be 0 to 65535\n${USAGE}`), 2;
  let evidence;
  try {
    evidence = parseEvidence(readFileSync(values.evidence), basename(values.evidence));
  } catch (e) {
    const code = (e as { code?: string }).code;
    console.error(`claims-enricher: ${code ? `${code}: ` : ''}${(e as Error).message}`);
    return 3;
  }
  const running = await startClaimsEnricher(evidence, { host: values.host, port, name: values.name, serverName: values.name });
  console.log(`claims-enricher: ${evidence.facts.length} facts from ${values.evidence} (${evidence.checker}), listening on ${running.url}`);
  const stop = () => void running.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return -1;
}

main().then((code) => {
  if (code >= 0) process.exitCode = code;
}, (e) => {
  console.error(`claims-enricher: ${(e as Error).message}`);
  process.exitCode = 1;
});
