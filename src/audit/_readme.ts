// The README.md every audit bundle carries: what each file is and how to check it, for an
// auditor who has the bundle and nothing else.
import type { BundleManifest } from './bundle-format.js';

export function bundleReadme(m: BundleManifest): string {
  const { from, to } = m.range;
  return `# vouch audit bundle: ${m.origin}, entries [${from}, ${to})

This directory (or .tar.gz) is a self-contained extract of a vouch decision log: every entry in
the range, exactly as stored and hashed, the signed checkpoint that commits to them, and what is
needed to re-run each decision. Written by ${m.tool.name} ${m.tool.version}.
${m.notes.length ? `\nNotes from the export:\n${m.notes.map((n) => `- ${n}`).join('\n')}\n` : ''}
## Files

| file | what it is |
| --- | --- |
| manifest.json | origin, range [from, to), counts, key history, tool version, checkpoint size and root |
| checkpoint | the C2SP signed note (ML-DSA-65, optionally Ed25519) for the tree of size \`to\` |
| entries.jsonl | one line per entry: \`{"seq": N, "entry": "<base64 of the exact RFC 8785 bytes>"}\` |
| range.json | the compact range of entries [0, from) as hex hashes, and \`prevLeaf\`, the leaf hash of entry from-1 |
| keys.json | the log's public keys: vkeys (C2SP signed-note verifier keys) and a JWKS |
| chains/sha256-<hex>.json | chain config documents (the resolved config, policy text inlined), named by digest |
| policies/sha256-<hex> | Cedar policy-set documents, named by digest |
| payloads.jsonl | ${m.payloads ? 'the input payload of each decision, in entry order: `{"seq", "digest", "payload": "<base64>"}`, or `{"seq", "digest", "erased": S}` when erasure entry S removed it' : 'not included (export with --payloads to replay)'} |

## Verify

    vouch verify <this bundle> --key <trusted vkey or JWKS file>

checks, streaming, every entry's leaf hash, every \`prev\` link (the first one against
range.json's prevLeaf), seq continuity, that range.json extended by every leaf gives the root the
checkpoint signs, the checkpoint signature, every document digest, and replays every decision
whose payload is here. Without --key the signature is checked only against keys.json, which came
with the bundle itself: get the log's public key from its operator to make that check mean
something.

## Replay

    vouch replay --bundle <this bundle> [--from SEQ] [--to SEQ] [--json]

re-runs each decision from its payload, its chain and policy documents (found by digest) and its
recorded context and state, and compares the canonical decision byte for byte: \`match\`,
\`mismatch\` (with the differing JSON Pointer paths) or \`unreplayable\` (payload erased or absent,
document missing, engine version absent). A decision made by another engine version (manifest
and entries name them) needs that version of vouch to replay.
`;
}
