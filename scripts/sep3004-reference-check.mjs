// Runs the contract's own reference verifier (gif, vendored byte for byte in
// fixtures/vectors/sep3004/gif-conformance/, Apache-2.0) over a SEP-3004 export: code vouch did not
// write, reading what vouch wrote. `npx tsx scripts/sep3004-reference-check.mjs FILE.json`; exit 1 on any failure.
import { readFileSync } from 'node:fs';

const ref = await import(new URL('../fixtures/vectors/sep3004/gif-conformance/audit-record-contract.ts', import.meta.url).href);
const doc = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const records = Array.isArray(doc) ? doc : doc.records;
const perRecord = records.flatMap((r, i) => [...ref.validateSkeleton(r).failures, ...ref.validateExtensions(r).failures].map((f) => `record ${i}: ${f}`));
const chain = ref.verifyChainSegment(records);
const manifest = ref.validateManifest(doc.attestation_manifest ?? {});
const ok = perRecord.length === 0 && chain.ok && manifest.ok;
console.log(JSON.stringify({ verifier: 'gif audit-record-contract.ts (4aa4b60)', records: records.length, ok, skeletonAndExtensions: perRecord, chain: chain.failures, manifest: manifest.failures }));
process.exit(ok ? 0 : 1);
