// Attack on issue 35 item 1 (no free-form caller text enters a signed field unredacted). Attacker:
// a hostile or careless caller of POST /v1/authorize. The recorded labels (target, server) go
// through recordedLabel (src/interceptors/builtin/recorded-text.ts), whose URL-userinfo detector
// (_patterns.ts url_credentials) and invisible-character handling (Cf/Cc only) miss:
//   - a password containing `@`: URL parsers (WHATWG, RFC 3986 readers that split at the last `@`)
//     take the LAST `@` as the end of the userinfo; the detector stops at the first, so the rest of
//     the password is signed into `target`, and serverOf's `[^@]*@` strip puts it into `server` too;
//   - a password containing a quote or a space (all legal, percent-encoded by the
//     URL parser): the detector matches nothing, the whole password is signed;
//   - invisible characters that are not Cf/Cc (U+034F combining grapheme joiner, U+FE0F
//     variation selector, U+3164 Hangul filler, U+2800 braille blank): they split a GitHub PAT
//     so the detector misses it, and they are not dropped, so the PAT is in the entry with one
//     invisible character inside.
// Expected: no part of the password/PAT is in the signed entry bytes.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64, utf8 } from '../../src/canonical/index.js';
import { post, testServer, writeConfig } from '../http/_server.js';

const SECRET = 'wJalrXUtnFEMIsecret';
const PAT_BODY = 'Zq9'.repeat(12); // ghp_ + 36

let s: Awaited<ReturnType<typeof testServer>>;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-atk-labels-'));
  s = await testServer({ config: writeConfig(dir, { version: 1, uncovered: [{ events: ['*'], phase: 'both' }], interceptors: [] }) });
}, 60_000);
afterAll(async () => {
  await s?.close();
});

const entryText = async (body: unknown) => {
  const r = await post(`${s.url}/v1/authorize`, body);
  expect(r.status).toBe(200);
  return utf8.decode(fromBase64(r.json.receipt.entry));
};

describe('URL userinfo the url_credentials detector does not see whole', () => {
  it.each([
    ['a password with an @ (the URL parser splits at the last @)', `https://admin:wJalr@XUtnFEMIsecret@files.example.test/report.pdf`, 'XUtnFEMIsecret'],
    ['a password with a quote', `https://admin:p'${SECRET}@files.example.test/report.pdf`, SECRET],
    ['a password with a space', `https://admin:correct horse ${SECRET}@files.example.test/report.pdf`, SECRET],
    ['user and password percent-encoded into one userinfo (%3A)', `https://admin%3A${SECRET}@files.example.test/report.pdf`, SECRET],
  ])('%s: the password is not in the signed entry', async (_what, uri, needle) => {
    const text = await entryText({ event: 'resources/read', phase: 'request', payload: { uri } });
    // sanity: WHATWG URL agrees that this is a credential-bearing URL for files.example.test
    const u = new URL(uri);
    expect(u.hostname).toBe('files.example.test');
    expect(u.username.length + u.password.length).toBeGreaterThan(0);
    expect(text).not.toContain(needle);
  });
});

describe('invisible characters outside Cf/Cc hide a credential from the detector', () => {
  it.each([
    ['U+034F combining grapheme joiner', '\u034f'],
    ['U+FE0F variation selector-16', '\ufe0f'],
    ['U+3164 Hangul filler', '\u3164'],
    ['U+2800 braille pattern blank', '\u2800'],
  ])('%s inside a PAT in a tool name: the PAT is not in the signed entry', async (_what, ch) => {
    const name = `ghp_${PAT_BODY.slice(0, 6)}${ch}${PAT_BODY.slice(6)}`;
    const text = await entryText({ event: 'tools/call', phase: 'request', payload: { name, arguments: {} } });
    // Both halves of the PAT, around one invisible character, are signed for ever.
    expect(text).not.toContain(`ghp_${PAT_BODY.slice(0, 6)}`);
    expect(text).not.toContain(PAT_BODY.slice(6));
  });
});

// Variants the review did not list, checked on the label function and serverOf directly (pure).
describe('the class: any userinfo up to the last @, any default-ignorable character', () => {
  const labels = [
    `https://admin:a@b@c'd e%40f${SECRET}@files.example.test/x`,
    `ftp://${SECRET}@files.example.test`,
    `https://admin:pa\n${SECRET}@files.example.test?q=1`,
    ...['\u115f', '\u180b', '\ufe00', '\u{e0041}', '\u{1d173}', '\u00ad', '\u2800'].map((ch) => `ghp_${PAT_BODY.slice(0, 6)}${ch}${PAT_BODY.slice(6)}`),
  ];
  it.each(labels.map((l) => [JSON.stringify(l), l]))('%s: redacted, idempotent and deterministic', async (_what, label) => {
    const { recordedLabel } = await import('../../src/interceptors/builtin/recorded-text.js');
    const once = recordedLabel(label);
    expect(once).not.toContain(SECRET);
    expect(once).not.toContain(PAT_BODY.slice(6));
    expect(once).toMatch(/\[SECRET_REDACTED:(?:url_credentials|github_pat)\]/);
    expect(recordedLabel(once)).toBe(once);
    expect(recordedLabel(label)).toBe(once);
  });
  it('serverOf takes the host after the last @ of the authority', async () => {
    const { serverOf } = await import('../../src/interceptors/server-of.js');
    expect(serverOf({ event: 'resources/read', payload: { uri: 'https://admin:wJalr@XUtnFEMIsecret@Files.Example.test/report.pdf' } })).toBe('files.example.test');
    expect(serverOf({ event: 'resources/read', payload: { uri: 'https://a@b@/x' } })).toBe('unknown');
  });
});
