// RFC 3161 time-stamp requests, replies and tokens, through pkijs/asn1js (no hand-written DER).
// The message imprint is SHA-256 over the exact bytes stamped (a checkpoint note as signed).
// A token is checked against certificates the verifier pins, never against ones it carries alone.
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { bytesEqual, sha256, toHex } from '../canonical/index.js';
import { InputError, VerificationError } from '../errors.js';

const SHA256_OID = '2.16.840.1.101.3.4.2.1';
const TST_INFO_OID = '1.2.840.113549.1.9.16.1.4';
const SIGNED_DATA_OID = '1.2.840.113549.1.7.2';
const TIME_STAMPING_EKU = '1.3.6.1.5.5.7.3.8';
const EXT_KEY_USAGE_OID = '2.5.29.37';
/** A token is a few KB; a chain a few more. Anything far larger is not one. */
const MAX_TOKEN_BYTES = 64 * 1024;

export interface TokenFacts {
  /** The signing TSA's subject, e.g. "CN=Example TSA, O=Example". */
  tsa: string;
  /** TSTInfo genTime, ISO 8601. */
  genTime: string;
  serial: string;
  policy: string;
}

/** pkijs takes BufferSource: a Uint8Array over an ArrayBuffer (never a SharedArrayBuffer here). */
const ab = (b: Uint8Array) => b as Uint8Array<ArrayBuffer>;

const bad = (why: string): never => {
  throw new VerificationError('ERR_VERIFY_TIMESTAMP', why);
};

/** A TimeStampReq (RFC 3161 2.4.1) for SHA-256(data), asking for the TSA's certificate, with a nonce. */
export function buildTimestampRequest(data: Uint8Array, nonce: Uint8Array): Uint8Array<ArrayBuffer> {
  const req = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: SHA256_OID }),
      hashedMessage: new asn1js.OctetString({ valueHex: sha256(data) }),
    }),
    nonce: new asn1js.Integer({ valueHex: positive(nonce) }),
    certReq: true,
  });
  return new Uint8Array(req.toSchema().toBER(false));
}

/**
 * The token (a CMS ContentInfo, DER as the TSA sent it) out of a TimeStampResp, after checking that
 * it was granted and answers this request (imprint and nonce, RFC 3161 2.4.2). Throws ERR_TSA.
 */
export function tokenFromReply(reply: Uint8Array, data: Uint8Array, nonce: Uint8Array): Uint8Array {
  const refuse = (why: string): never => {
    throw new VerificationError('ERR_TSA', `TSA reply refused: ${why}`);
  };
  let resp: pkijs.TimeStampResp;
  try {
    resp = pkijs.TimeStampResp.fromBER(ab(reply));
  } catch {
    return refuse('not a DER TimeStampResp');
  }
  const status = resp.status.status;
  if (status !== pkijs.PKIStatus.granted && status !== pkijs.PKIStatus.grantedWithMods) return refuse(`status ${status}${resp.status.statusStrings ? ` (${resp.status.statusStrings.map((s) => s.valueBlock.value).join('; ')})` : ''}`);
  if (!resp.timeStampToken) return refuse('granted but no token');
  const token = new Uint8Array(resp.timeStampToken.toSchema().toBER(false));
  const info = tstInfoOf(token);
  if (!bytesEqual(imprintOf(info), sha256(data)) || info.messageImprint.hashAlgorithm.algorithmId !== SHA256_OID) refuse('the token is over other bytes than were sent');
  if (!info.nonce || toHex(new Uint8Array(info.nonce.valueBlock.valueHexView)).replace(/^0+/, '') !== toHex(positive(nonce)).replace(/^0+/, '')) refuse('the nonce does not match the request (a replayed or misrouted answer)');
  return token;
}

/** PEM (one or more CERTIFICATE blocks) or one DER certificate: the TSA certificate(s) an auditor pins. */
export function parseCertificates(bytes: Uint8Array): pkijs.Certificate[] {
  const text = new TextDecoder().decode(bytes);
  const blocks = [...text.matchAll(/-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/g)].map((m) => Uint8Array.from(atob(m[1].replace(/\s+/g, '')), (c) => c.charCodeAt(0)));
  const ders = blocks.length > 0 ? blocks : [bytes];
  try {
    return ders.map((d) => pkijs.Certificate.fromBER(ab(d)));
  } catch {
    throw new InputError('ERR_INPUT', 'not an X.509 certificate (PEM CERTIFICATE blocks or one DER certificate)');
  }
}

/** The subject of a certificate as "CN=..., O=...". */
export function subjectOf(cert: pkijs.Certificate): string {
  return cert.subject.typesAndValues.map((tv) => `${NAMES[tv.type] ?? tv.type}=${String(tv.value.valueBlock.value)}`).join(', ');
}

const NAMES: Record<string, string> = { '2.5.4.3': 'CN', '2.5.4.10': 'O', '2.5.4.11': 'OU', '2.5.4.6': 'C', '2.5.4.7': 'L', '2.5.4.8': 'ST', '2.5.4.97': 'organizationIdentifier', '2.5.4.5': 'serialNumber' };

/** What a token says, unverified (status pages, the console): TSA name from its signer certificate when it carries one. */
export function readToken(token: Uint8Array): TokenFacts {
  const info = tstInfoOf(token);
  const signed = signedDataOf(token);
  const cert = signerCertOf(signed, []);
  return { tsa: cert ? subjectOf(cert) : 'unnamed TSA', genTime: info.genTime.toISOString(), serial: toHex(new Uint8Array(info.serialNumber.valueBlock.valueHexView)), policy: info.policy };
}

/**
 * Check a token offline: its TSTInfo imprint is SHA-256(data); its CMS signature verifies with the
 * signer certificate; that certificate carries the critical timeStamping EKU (RFC 3161 2.3) and
 * chains, at genTime, to one of `pinned` (a pinned TSA certificate itself counts). Throws
 * ERR_VERIFY_TIMESTAMP naming what failed.
 */
export async function verifyTimestampToken(token: Uint8Array, data: Uint8Array, pinned: pkijs.Certificate[]): Promise<TokenFacts> {
  return coded(() => checkToken(token, data, pinned));
}

/** An altered token can break pkijs's parsers anywhere: whatever they throw is this token's failure, coded. */
async function coded<T>(f: () => Promise<T> | T): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof VerificationError) throw e;
    return bad(`malformed token: ${(e as Error).message ?? String(e)}`);
  }
}

async function checkToken(token: Uint8Array, data: Uint8Array, pinned: pkijs.Certificate[]): Promise<TokenFacts> {
  if (pinned.length === 0) bad('no pinned TSA certificate to check the token against');
  const info = tstInfoOf(token);
  if (info.messageImprint.hashAlgorithm.algorithmId !== SHA256_OID) bad(`message imprint uses ${info.messageImprint.hashAlgorithm.algorithmId}, not SHA-256`);
  if (!bytesEqual(imprintOf(info), sha256(data))) bad('the token is over other bytes: its message imprint is not SHA-256 of this checkpoint note');
  const signed = signedDataOf(token);
  const signer = signerCertOf(signed, pinned);
  if (!signer) bad('the token names a signer certificate that neither it nor the pinned certificates hold');
  await checkCarriedCertificates(signed, pinned);
  checkSignerInfo(signed);
  if (!hasCriticalTimeStampingEku(signer!)) bad(`the signer ${subjectOf(signer!)} lacks the critical timeStamping extended key usage (RFC 3161 2.3)`);
  // A token without certificates (certReq false) is checked against the pinned ones.
  signed.certificates ??= [];
  for (const c of pinned) if (!signed.certificates.some((x) => x instanceof pkijs.Certificate && sameCert(x, c))) signed.certificates.push(c);
  let ok = false;
  let why = '';
  try {
    ok = (await signed.verify({ signer: 0, data: data.slice().buffer, trustedCerts: pinned, checkChain: !pinned.some((c) => sameCert(c, signer!)), checkDate: info.genTime })) as boolean;
  } catch (e) {
    why = (e as { message?: string }).message ?? String(e);
  }
  if (!ok) bad(`the token's signature does not hold against the pinned TSA certificate(s): ${why || 'signature mismatch'}`);
  // The pinned certificate itself (no chain to walk): its validity still bounds genTime.
  if (pinned.some((c) => sameCert(c, signer!)) && (info.genTime < signer!.notBefore.value || info.genTime > signer!.notAfter.value)) bad('genTime lies outside the TSA certificate\'s validity');
  return { tsa: subjectOf(signer!), genTime: info.genTime.toISOString(), serial: toHex(new Uint8Array(info.serialNumber.valueBlock.valueHexView)), policy: info.policy };
}

/**
 * The certificates a token carries are outside its signature (RFC 5652 5.1), but they are part of
 * the evidence kept: each must verify under its issuer when the token or the pin holds that issuer,
 * so an altered copy is found rather than carried along unnoticed.
 */
async function checkCarriedCertificates(sd: pkijs.SignedData, pinned: pkijs.Certificate[]): Promise<void> {
  const carried = (sd.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
  for (const c of carried) {
    const issuer = [...pinned, ...carried].find((i) => bytesEqual(der(i.subject), der(c.issuer)) && (i !== c || bytesEqual(der(c.subject), der(c.issuer))));
    strictEcdsa(c.signatureAlgorithm.algorithmId, new Uint8Array(c.signatureValue.valueBlock.valueHexView), `the signature of ${subjectOf(c)}`);
    if (issuer && !(await c.verify(issuer))) bad(`a certificate the token carries (${subjectOf(c)}) does not verify under its issuer: altered`);
  }
}

/** The unsigned parts pkijs reads loosely: the digest algorithm list must name the signer's, and ECDSA signatures must be DER. */
function checkSignerInfo(sd: pkijs.SignedData): void {
  const si = sd.signerInfos[0];
  if (sd.signerInfos.length !== 1) bad(`a token has one signer; this one has ${sd.signerInfos.length}`);
  if (!sd.digestAlgorithms.some((a) => a.algorithmId === si.digestAlgorithm.algorithmId)) bad('the SignedData digest algorithms do not name the signer\'s: altered');
  strictEcdsa(si.signatureAlgorithm.algorithmId, new Uint8Array(si.signature.valueBlock.valueHexView), 'the token\'s signature');
}

/** An ECDSA signature (1.2.840.10045.*) is a DER SEQUENCE of two INTEGERs; any other form is an altered one. */
function strictEcdsa(alg: string, sig: Uint8Array, what: string): void {
  if (!alg.startsWith('1.2.840.10045.')) return;
  const parsed = asn1js.fromBER(ab(sig));
  const v = parsed.result;
  const ok = parsed.offset === sig.length && v instanceof asn1js.Sequence && v.valueBlock.value.length === 2 && v.valueBlock.value.every((x) => x instanceof asn1js.Integer) && bytesEqual(new Uint8Array(v.toBER(false)), sig);
  if (!ok) bad(`${what} is not a DER ECDSA signature: altered`);
}

const der = (x: { toSchema(): asn1js.AsnType }): Uint8Array => new Uint8Array(x.toSchema().toBER(false));

function signedDataOf(token: Uint8Array): pkijs.SignedData {
  if (token.length > MAX_TOKEN_BYTES) bad(`token larger than ${MAX_TOKEN_BYTES} bytes`);
  try {
    const ci = pkijs.ContentInfo.fromBER(ab(token));
    // DER only: BER's leeway (lengths, padding) would let one token take many byte forms.
    if (!bytesEqual(new Uint8Array(ci.toSchema().toBER(false)), token)) throw new Error();
    if (ci.contentType !== SIGNED_DATA_OID) throw new Error();
    const sd = new pkijs.SignedData({ schema: ci.content });
    if (sd.encapContentInfo.eContentType !== TST_INFO_OID || !sd.encapContentInfo.eContent) throw new Error();
    return sd;
  } catch {
    return bad('not an RFC 3161 token (a CMS SignedData over a TSTInfo)');
  }
}

function tstInfoOf(token: Uint8Array): pkijs.TSTInfo {
  const sd = signedDataOf(token);
  try {
    return pkijs.TSTInfo.fromBER(sd.encapContentInfo.eContent!.getValue());
  } catch {
    return bad('the token\'s TSTInfo does not parse');
  }
}

const imprintOf = (info: pkijs.TSTInfo) => new Uint8Array(info.messageImprint.hashedMessage.valueBlock.valueHexView);

function signerCertOf(sd: pkijs.SignedData, extra: pkijs.Certificate[]): pkijs.Certificate | undefined {
  const sid = sd.signerInfos[0]?.sid;
  if (!(sid instanceof pkijs.IssuerAndSerialNumber)) return undefined;
  const all = [...(sd.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate), ...extra];
  // Byte-equal names: an issuer spelled another way (string type) is another token's bytes.
  return all.find((c) => bytesEqual(der(c.issuer), der(sid.issuer)) && c.serialNumber.isEqual(sid.serialNumber));
}

function hasCriticalTimeStampingEku(cert: pkijs.Certificate): boolean {
  const ext = cert.extensions?.find((e) => e.extnID === EXT_KEY_USAGE_OID);
  if (!ext || !ext.critical) return false;
  const eku = ext.parsedValue as pkijs.ExtKeyUsage | undefined;
  return eku?.keyPurposes.length === 1 && eku.keyPurposes[0] === TIME_STAMPING_EKU;
}

const sameCert = (a: pkijs.Certificate, b: pkijs.Certificate) => bytesEqual(new Uint8Array(a.toSchema(true).toBER(false)), new Uint8Array(b.toSchema(true).toBER(false)));

/** An INTEGER's content bytes for a positive nonce: a leading zero byte when the top bit is set. */
function positive(n: Uint8Array): Uint8Array {
  return n[0] & 0x80 ? Uint8Array.of(0, ...n) : n;
}
