// A known-answer self-test of the two signature verifiers every open check relies on (FIPS 140
// style: run before the first real use). The log thread runs it while it waits for its keys
// (store/log-thread-host.ts), which also means the verifiers' first, slow call (about 300 ms of
// JIT warm-up on Node 20) is not paid inside the open check that start-up waits for. Each
// verifier must accept the vector and refuse it with one bit changed; otherwise nothing is opened.
// The vectors: FIPS 204 deterministic ML-DSA-65 from the seed 32 x 0x5a and RFC 8032 Ed25519 from
// the seed 32 x 0xa5, over SELF_TEST_MESSAGE (test/crypto/self-test.test.ts re-derives them).
import { fromBase64 } from '../canonical/index.js';
import { CryptoError } from '../errors.js';
import { verifyEd25519 } from './ed25519.js';
import { verifyMldsa } from './mldsa.js';

export const SELF_TEST_MESSAGE = 'vouch: known-answer self-test of the verifiers\n';

export const SELF_TEST_VECTORS = {
  mldsaPublicKey:
  'aAgZ2VQE4C5GYlpqzyFBDdTRrEp/HwnxcsCX+CiWMV9/PyF/Dw/VEXEOXL3zvLfS3YfOYdiKw64gFb6EggIztkEflzAZz2b7dUai' +
  'odiYlMTs9+9NffyQrBVwXRkrqmL+YDKLd7Msx07ODoTqHS7WecvQCEZvgdPFcUJALiyQmQvDPruwKzNGA8uvAtWZBASN6zuvUcI9' +
  '4y9qVO2qTf5H91m2GvV7uOu04KCfclMsiMI6Lj/+hqm9JpYurHLgrtUABovr4jGSbdBbrhUrymThxsTdRY7rZ2w4o8BJ4t4lWBrT' +
  '1nSCjZnRR8INuWwqaUzseK5MJR5GavyJLnqtpSaujqbdjbPIFTVyfZEj1mcb09lNDvFWAesKs47ijBmuW4rvnSq6nEYhAv4k4ZjH' +
  'kqoyGhPoob7G++UVzDmn3Rvzw7xUnaXXwQ+gH7L+YmV4TgUoz7VfBNMtX5HQwvXyy2eUPD29zKJIs+H6FR98DwKB/W3kL9CqvGRC' +
  'd4M1XOm7m/88mOlvdDzwznjd0mqb9Oe9UgSrypohlZ1SUJO18MSpcatHqML2Ap/kQt/zU7GEqroJplWs083APu8L4SrFKGIEPlU1' +
  'eSMSytODa7K2RQ8maQENsfeQ8ZhPGIejmOOEOXDBZhl9fiq4UVmqDNHvefFAsj5odhJuhbxfkxqyC3i++sOcIBNZx3I4ysuwgzks' +
  'd10ss6xW4Iu+eYBuBUdq5kw84HkRt7A+UF33KeuU40DmhgA2SLd8i5ZXfeQXOPsQuzaGvmAWOY7Iuasexegv7ve5TFh7moMrb8dn' +
  'N64s3lYwx59Sk5cFgB1qP5hPXIRFtDHZqSfgqmL61++qzB3XnbZQbc78pX5n1ZJH6rLZLArwwOzuAWH0AVFdfidPJaSt2dkaFnN4' +
  'DmcjFT3kNFqx8dPKHjvTJhxv3mqS9ZJAd940G9zqTVhFGU7D20lOnrLAXq8sqCGinsxlq9EsOo9nea/mcBYCUVjHCN7t4pok01lG' +
  'cXVXkSqOCxGfvh/XS8fMqvwXtVTupRHpnPdEIN1d0DEDpL4pKL8DU/XudAm/oXSWB5i5iC492K849h5tlCL17vxLDTDPKR5oJkdd' +
  'FPdeWLpDq4Qcyuml2/OxZMwayfHq3pJIOzsaEaVnZQS/ZtrgcOfduI9Y2dAryG0F8U5npSvK4UcNZqqbQslAPRxFwvzDQ2hs7D0n' +
  'rw11eLORKY/v11K03bFLl/A7mtPC9fx1a7Q8Ve//wLiCFjgihRnNeNyFZup+Vr5rkHra2RDd/Ajcu1DsIrZbBAAaHn6V+dMk4vug' +
  'mkJ8XKjR1XBNntZYsN1Jm+HE00m0l0K3Q2iyIqR25dFTtRs8+ByC44h1svi1nimKqihPkI7CuW9YRXNCbGZWjMjfkAaKDVGW4YnR' +
  '/xR6rQ3ioLdfnbrsT6ziPY3PmKxafO3zcwjSYhSE+P35gG1sOKZpu5W8hLzp0X6YQyhCXFa8H8ttUx3+UgNQG6w0Pw9zp48KYLJD' +
  'HBY71S6RQS4Bue7dZnYY/wtos1uG92ciOVifjkQtJyRhNWvu55ryuv4eFUL79ieV3NILh/HH0yme8DhLytaqkHZeJU5RssBT9DW1' +
  'yferD+OLC+er8IGmDAr1KCxU8suxmOrhqHZ9RTl+10DcSZSTknHhIboYFlYWRbhIw2FB6HeUQ4ol/G/BYjY+xrfR7nh1sei96Ixk' +
  'S1Ma0okhDJObTZpfLBJrUPx8OUlgUNfgF0n3Ct/l3NMi6EMMvcZZeGvdedcB7gPRDsZ+/PKj7YYCaWIWQYV+ciBfXSovxP18Imm8' +
  '4pFL5IAyMP7/br6Hz4eFiiOSZ9ajtGeIZOUHPd6Zba1OiONTJ4GPrlEEteO5K/bd3C83UOcoBr7SBHiWgf4JT9AFprglcnPaz0gM' +
  '1WJ2sZH28ApUlXlN3cbRVh7BjN77A6yR5F/lzewoqPrNEoF8UpxnE5Ptd64iBIGY6CN73LDv+lViGYJq5mYgBo3F0No8/xcjLp8L' +
  'fDfVp/DdDSO5oKwFIMCqmwR6Q548bdVkJNXNgjqUZ7mWhcC2VV74dWX700RpOpo9i5vErj58lgNAruxFbdjSTlYgQVbub9NCa6B+' +
  'RsFtI9YNd88G/pSDHhLv/P0p/ziZiaa1ex2ubr2QtWoYSqbddiaqA5ydfZTNiE0O6CrUaBFuoAADFWdC5JZreP55+BDxIJjzw8N6' +
  'CmJ0FU3Sy6xArotFatSOGHsh26arIlmVLeaEKoh068fWlKmFp0AIbmVj1GiCaU18TdvQ9x3vN/XelxMqQDFIoPf0MD172IwjLiWw' +
  'whBD+FXC2/4O6psiSrG3H+nzR1+tbKrED+64bZmXnlIe/E4aKfixb3Eb21glA85vXCqsZ9zIKdg0RCs8wxS0KPcJoJS+uJEu4LJV' +
  '4Mkz94Z0d3bAcUqomYOdlNb42BXm1eivd3m01Jclv5fWSfk2XvXbl6TYWanq+acee7i4sDiIJdZckef1L262uEUHAnEx8KYcAoiW' +
  '+5szyp7Ij9KmsZrVcU7RQDIvMapU+pY8maOkoUwIry9FTT3nZrzvwmyrDAY3yXQZryT1hw52XLfxIcMVKcDykV/EgmKnzf4C83YW' +
  'mpw=',
  mldsaSignature:
  'jRnbJFUuFc+s50+L0mhPUMgIoIeyTA0aFM6Ei0+8I5Wt6t/fS49Af44aaALIaXKGYg9F9DD9eOGGdie0ZMB0b2bFfdLoNU2Qr4E6' +
  'HQ3FIhuKHBV7B6tCrW8VmFiRyJwCOfKPaWUBSUgRZ89lPcksLY9a5wcuWyEDV+Bw9EWa4X4Dul3/gSJhPNnMWyWAt0fnJaZsTYxG' +
  'WkhDHLCo5eiDRXZqvJSEWSg1hoNoSPmZlDR67u691+2dgkjttVYaq32J0RVS7Qc/5iTjtK0SMnuLeBDLIGYusWlZjMvJYqenSoH/' +
  'rQzmcgnvp8Fg+4Q/ju8CdWk1n1eUw/N6rYzW76JasnQxtJJFWgSv10IaNy4PEab/+8Y1EwF93YwilOrjr9hvMym1xK26+s1Fa0Wg' +
  'dvasB8vCyOHkYkIc0giqidcJhBddFjbutPiWaas30lmUhuk85HAoXp4Ubt74kAes3CxNYjBRH3uo3WGu4gRP7ijnFjDEPDo3ab2b' +
  'tLc0OReETseatOwoqLZNo7nLqUPEccEBlXni9KZvVUMHEX/y3x6M/H5BOWuBoEGsfkZPuhwm2eVtG0J6AaOIn3X+lxJIXwgJW5j6' +
  'XBgH53jlm/seQtgKYNZ8sInT8xICO/6QHRUjfY1M+as8Gapxzf4okH/KNKSeQSw1a8UvIJUrdf98zbt23cQKJ3YfEEgfskmRYhIc' +
  'xd2hA/MELAe8aQZJuBLbeNgd5maJrYDh4kA57ZF9v0exzatbcGf9cp27iLcG1L05+nkSxAnjUtMSatPhdXmkT3s0/t1B4yZ70OwC' +
  'DWGnl2VTQTUpqljcLVHDAcE1d7Q1/X6hMEz/qFl4/v1MvZrv5Dhl3iNwciZdfdlU3+FjWj2BK8C1o5Bx3/d9dfOYwTJ+8F0xEXEd' +
  'xy3CFTHp4QyocUreoxzAzo1tk2UuZHCqIgJvt/Tdw8QXzxJ8VmnnOIlFEzbSETYHEJCMBYxZZ9CoGy8GKXS2pIFqm186PlvJZeuk' +
  'Itg++zq0huJexl4lfJtkzEHdakOrsSNJ+D1JxmmRv7+9bzksSP3s+RrWAlYoL5fa7xN5gB0MqRRA3lqF5z/KckUzSwHFSpPFKiXS' +
  'GycjBuC7wDoSJEyAXjq0ahBEK6HR06av29qC9oG8j3Z0QPc4nHR3EB9BNJeVbch4iHM6a24ZXQCz3t4BeqKZvDF3xWFOqNkpEjne' +
  'ddHh3prWdOtr7hY6CiRFCpnStADrxiSowwQw5sBXFC/8nxQbeBpTKu/A38tDbVXra/AGb29uenoP4JnG+eIxWEDG7gXwOv50mOoY' +
  'tEHZ1Pc4G4W4SEOKZi7oG22/YrqyjFRXtBbETRHvYS9ymAq58Vgtd1Kau/clzm/7K5PI/ZRmKj3gzBkC3DAzWUvb9ErLtl9fnK9C' +
  '/+IHi2SSaDoeOnJHUhyn4Vg/ULq5By1ZDWb0nBNJzL27Om+dm/H/l1gZVDjoGh83eIWfEVM8BttrHz587hZBamn+OdPvktbyAfFy' +
  '1Kit/bsEPoQVIWN9yOfplnh8wFen1SNnG5PHO9Tc4/8XgCLJ3NuycN4flpu5U0T5cn3l+gq76g98g+8HgyPAnkB4zc77gYZ5Jwkk' +
  'pTP+DkDfZ10k0N1O8Ey2kSf8HL+rhmE1qiYK3bw9aEDRlaAiDpnxoEosZpRwfg8mOW/opmuDcVHiN1PARvBfQKd3AZB9cafnB7xh' +
  'A6hyV6lAYSMDI07HjGWaMedgG5MhHyKox4uxysdjEkNF8ARbjDMGQ4N68z0L+5tByRH7SYkEeAHU4rXmfryWDUY3GsZ2mNWh8XsO' +
  'Z3INDFRN2fK+wMOEpF5uH+1siwcDJKMjIV3W71q6VQ39H6Lo2gWivnjBEbFNGBkIvnm7qUAHlDMGkqvEdEXWKFWwjFk0jfHP9SnG' +
  'hwmTya0vyqka4tdpfbU8pO6H6tCmf0yYkLKyWn0rGLfGWghHa86ZqQ/w+yqIbysHcoX5mfm0EEF2fouuilZlvtzgn43skhOvfb5k' +
  '1rmEAq1IQ+rBubYikT5yHfb9cg9OgtH4hqNdnS9BRvxEmCeUxNB/tuwAGrFi+LOIre2O3w5ZYwPR0NLFf7wCNkCJh+niIzhVnBZR' +
  'GfN5i6y9iARplmauUhEZ2zisNuvXitCiEs7XHES1QZFPX5LrPZkpACzqHXc9ihNAzGeYNHFr/pk5lk98+4AlbRw/JJVu2kt6y535' +
  'ZKtxUCR63bFW3vpCbBVE2ceA8vucxNZ3+QAuMTLaUGFSItyt3MKaKCvfg+HFc+XXPok9I9d9chfAwev2WTuchAZHaOp2SZ+ZPVXY' +
  'r54Bcz+bUXz/8uNcU88La+dQ5SL7651W674GXnDPRH0RfCD8u4NcJAteJCam1ySi4+3zkNOFUQ8QP7LgHzV7CkesW/abY4G7QHWI' +
  'uc0Nlvpmt4rw8UCO7ReRDu/2r9JHzwsjAG41L1IYWVpbj1JCAxPKAboGN8xh3QymZtLOpo6P7r+25qJo7Y+ZGFbol3e8SCMaJV+g' +
  'GoukoLl4KsGwmtjMC+L4yUh6Eia+5nHzAzqAq/8kufLU6Y4S1zSpLOCPADTvvZ2tx78/XbBMRrFpCs/M8R5xCaWqVWHJ62XPqpuT' +
  'UNiXLjBAi5IdjEVXvbCnvqKB06qghSR4cNkVOXouNDg60Y9x5CflOZbUpZNhkySXa6fwL3Nly3d7uxu3Jti68lvI7fG9wtP1vcBc' +
  'twbGwfI9aCZGBXpgdqxlU2gj7BL8M+rk0qm67FLvTqeOIpaJKMtsAvFHS4pte+IRnhXPWLwQFxTGTCLxJ1KirPZo1wY1kOug4wda' +
  'PvfQjqskj7zUxN+o6sXsp/qOJJvydqbznVHk5gBThbhci7wJZyxvst5FxOkQjRnooXszzYb3w117JoN2FS8Z03pxVnonfCOffSzg' +
  '/hrwgcudhHchsoJh0wtgUAbsvDu6GGlT3YqLdcW4htAU8b7bkIQllGZdgsnKWTgWZCVMRMpYNyoeTKMTVtizecuzK9sgSQrp/BhW' +
  'gdT4Tmc4TKUnUj9jqDHYtJkcbh3KNFx5imFp35A82epFAqRJm9xtymW94moXK/KsKkQSk5LuCk+Q10UpOzHwDQmmn8ln+bopHSri' +
  'UzVEbpFZ36+ZRjUBV2w3+W1j7ae65o8URTAGdhuxDXzZWlwJGcMJDhKNKT1p3EyVe3BwywMoaCloMu7zTp5CQ1LZYrQ3nXIOIRyn' +
  'R9Kh60BOlSgW8Ju6g1sxH5FoER9ALEM3PYayU3fkb3sekyVdoaGjbJV/4aql79e+HiejRnKCHbOCLue6qFDdnTGcKU+WR3jkQ7YW' +
  '6dGs4MjiB+XS3SOIvSn+5xCNC+ux+LRmQDWPwD/4Ikm+YZTn8KNlPe4MVo/+xf3Ljh2vvtDFQAipyPrZ+ro9bFQIqkvHD+tzXszW' +
  'LDqM5mjPfeZVCe6IKD4IUcp5vCHhdDftc20aH0ft3VJgAiPCp6+JqGb747illp0z7lfIB6Jf6U3daQkESodjW/aFJ1VeSJ7QLWXy' +
  'RRSWHKB1gkF1ttDVWAsX3iK7lHx6fC6UIkU+ddXuWEYPQtnFanHt8QLnTKrwDRd08dvJyAvFg8m0HEU+TcRTzkLNUu38FMVr+fcW' +
  'RnXWKll7CU0nWQBBXpWFi1ww86e2qdAEEUFEQ326bfbI/CEgFfG88b5SGwhKr3J6JJCGLCe6qK7c5B+017QAlQf01YK5I5aIPnIc' +
  'e3NAPbdiXZbfL2rgc1j+MUIZ3s694CdPZiPoOkyEccpiXOK79D7BCkB5dlnAJlaDZfuToOLLGixgD8Q7XcDKBcxSrvh9Jeju8w9x' +
  'qFu5VHW0t1xFS/nIMyExK1M8SiKA3i2H6w9vMb4GyeXSkzuWyqqIgSMQMKRYD3HLFUeAAz69UrAFCNqTXyC24IWAgJKBXkdEsahY' +
  'CMiQiG0jzExlqF3+DS8KsPvDS9jUkNhk1YzFpXKK7/RNNc48LEU/8UdNqLYqPeTGPFczPInHr4+TRcZGGuA3PSoiPU24ddL0Nb2j' +
  '2mwGXFk6rJ3z0ZVzUfvLXh5kSdAWUfezFXtDEyc0pSm7ebP1MibnJOBlkjFDgv/6ScT6GQzfAfslfvCrh5Em8lOtuyDx/levxyK5' +
  '4Lm/gzAmOg/OY7+cNRol1cS+tLmWJhe85XSivWbCZPy5X5PFxiNzw8tpNNELXNIZIsWvJmm1qZQKAbNFvSuTHYt4Qy9ao0mx/Iwm' +
  'NIbztIQoH8sE6FYV6YyDQN4E/aRt4M2hS8bi21E5cfBwET4IOJmq0ac5v3FF52956uCcLmYx9sHF7W0gvRZvUqhqzY40ndnI+EmP' +
  'ISzXT3Pd5At7aCvi21xuiR7BXM/PcfNbsLji4x0mMzVHh6PD3AENYI2RseP1ASwyepW01+BHZnGR6WBovwAAAAAAAAAAAAAAAAAA' +
  'AAAABQ4WHiMm',
  ed25519PublicKey: 'KeWDOpFaZCmk46eUhHXDOO9Dbrgr6JyS8FlwRAPbnVU=',
  ed25519Signature: 'vFaKR86yL9/R21ELvGR94tSG68ksTMnSE/hJkqzoBDDNn4rg8n7WeqFrC/qshYYDFXfrorSbvkNab85BdKpWAg==',
};

/** Throws CryptoError (ERR_INTERNAL) when a verifier accepts a bad signature or refuses a good one. */
type VerifyFn = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean;

/**
 * Throws ERR_INTERNAL unless each verifier accepts its vector and refuses it with one bit changed.
 * `verifiers`: the ones the caller will use (the log thread's Ed25519 one is node:crypto's).
 */
export function cryptoSelfTest(v: typeof SELF_TEST_VECTORS = SELF_TEST_VECTORS, verifiers: { mldsa?: VerifyFn; ed25519?: VerifyFn } = {}): void {
  const msg = new TextEncoder().encode(SELF_TEST_MESSAGE);
  const bad = msg.slice();
  bad[0] ^= 1;
  const mldsa = verifiers.mldsa ?? verifyMldsa;
  const ed25519 = verifiers.ed25519 ?? verifyEd25519;
  const checks: [string, (m: Uint8Array) => boolean][] = [
    ['ML-DSA-65', (m) => mldsa(fromBase64(v.mldsaPublicKey), m, fromBase64(v.mldsaSignature))],
    ['Ed25519', (m) => ed25519(fromBase64(v.ed25519PublicKey), m, fromBase64(v.ed25519Signature))],
  ];
  for (const [alg, verify] of checks) {
    if (!verify(msg) || verify(bad)) throw new CryptoError('ERR_INTERNAL', `the ${alg} verifier failed its known-answer self-test: refusing to open any log`);
  }
}
