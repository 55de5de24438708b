// A time-stamping authority run by the test: a CA and a TSA certificate made here by `openssl`
// (timeStamping extended key usage, critical), and an HTTP server that answers RFC 3161 requests
// with `openssl ts -reply`, or is broken on purpose (500, garbage, closed) to play a TSA that is down.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CNF = `
[ req ]
distinguished_name = dn
prompt = no
[ dn ]
CN = unused
[ ca_ext ]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[ tsa_ext ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,nonRepudiation
extendedKeyUsage = critical,timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[ tsa ]
default_tsa = tsa_config
[ tsa_config ]
dir = .
serial = $dir/tsaserial
crypto_device = builtin
signer_digest = sha256
default_policy = 1.3.6.1.4.1.99999.1
other_policies = 1.3.6.1.4.1.99999.2
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = no
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`;

export type TsaMode = 'ok' | '500' | 'garbage' | 'hang';

export interface TestPki {
  dir: string;
  caCert: string;
  tsaCert: string;
  tsaKey: string;
  cnf: string;
}

const ossl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });

/** A CA and a TSA certificate it issued (EC P-256), in a fresh directory. `name` goes in the subjects. */
export function makeTestPki(name = 'Test TSA'): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-tsa-'));
  const cnf = join(dir, 'openssl.cnf');
  writeFileSync(cnf, CNF.replace('dir = .', `dir = ${dir}`));
  writeFileSync(join(dir, 'tsaserial'), '01\n');
  ossl(dir, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '3650', '-subj', `/CN=${name} Root CA/O=vouch tests`, '-config', cnf, '-extensions', 'ca_ext']);
  ossl(dir, ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'tsa.key', '-out', 'tsa.csr', '-subj', `/CN=${name}/O=vouch tests`, '-config', cnf]);
  ossl(dir, ['x509', '-req', '-in', 'tsa.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'tsa.pem', '-days', '3650', '-extfile', cnf, '-extensions', 'tsa_ext']);
  return { dir, caCert: join(dir, 'ca.pem'), tsaCert: join(dir, 'tsa.pem'), tsaKey: join(dir, 'tsa.key'), cnf };
}

export interface TestTsa {
  url: string;
  pki: TestPki;
  /** Requests answered (any mode). */
  requests: number;
  mode: TsaMode;
  close(): Promise<void>;
}

/** An RFC 3161 TSA over HTTP on 127.0.0.1 (a free port), answering with `openssl ts -reply`. */
export async function startTestTsa(pki: TestPki = makeTestPki(), mode: TsaMode = 'ok'): Promise<TestTsa> {
  let n = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      tsa.requests++;
      if (tsa.mode === 'hang') return; // never answers: the client's timeout must end it
      if (tsa.mode === '500') return void res.writeHead(500).end('internal error');
      if (tsa.mode === 'garbage') return void res.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end('this is not DER');
      const q = join(pki.dir, `q${++n}.tsq`);
      const r = join(pki.dir, `r${n}.tsr`);
      writeFileSync(q, Buffer.concat(chunks));
      // Asynchronously: the service under test runs in this process, and must not wait on openssl.
      execFile('openssl', ['ts', '-reply', '-config', pki.cnf, '-queryfile', q, '-inkey', pki.tsaKey, '-signer', pki.tsaCert, '-chain', pki.caCert, '-out', r], { cwd: pki.dir }, (err, _out, stderr) => {
        if (err) res.writeHead(500).end(String(stderr));
        else res.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(readFileSync(r));
      });
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  const tsa: TestTsa = {
    url: `http://127.0.0.1:${port}/tsa`,
    pki,
    requests: 0,
    mode,
    close: () => new Promise<void>((ok) => { server.closeAllConnections(); server.close(() => ok()); }),
  };
  return tsa;
}

/** `openssl ts -verify` of a DER token over `data`, against CA file `ca`: vouch's code plays no part. */
export function opensslVerifyToken(pki: TestPki, tokenDer: Uint8Array, data: Uint8Array, ca = pki.caCert): { ok: boolean; out: string } {
  const tok = join(pki.dir, `verify-${Math.random().toString(36).slice(2)}.tst`);
  const dat = `${tok}.data`;
  writeFileSync(tok, tokenDer);
  writeFileSync(dat, data);
  try {
    const out = execFileSync('openssl', ['ts', '-verify', '-token_in', '-in', tok, '-data', dat, '-CAfile', ca, '-untrusted', pki.tsaCert], { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
    return { ok: /Verification: OK/.test(out), out };
  } catch (e) {
    const x = e as { stdout?: Buffer; stderr?: Buffer };
    return { ok: false, out: `${x.stdout ?? ''}${x.stderr ?? ''}` };
  }
}
