// Whether an interceptor server's URL names a host a deployed Worker cannot reach: loopback,
// private (RFC 1918, unique-local), link-local, shared (CGNAT) and unspecified addresses, and
// localhost. Read from the URL as the WHATWG parser normalizes it (so `http://2130706433/` and
// `http://0x7f.1/` are 127.0.0.1); host names are not resolved (the build has no say over DNS).
const V4_RANGES: [number, number, string][] = [
  [0x00000000, 8, 'an unspecified address (0.0.0.0/8)'],
  [0x7f000000, 8, 'loopback (127.0.0.0/8)'],
  [0x0a000000, 8, 'a private address (10.0.0.0/8)'],
  [0xac100000, 12, 'a private address (172.16.0.0/12)'],
  [0xc0a80000, 16, 'a private address (192.168.0.0/16)'],
  [0xa9fe0000, 16, 'link-local (169.254.0.0/16)'],
  [0x64400000, 10, 'shared address space (100.64.0.0/10)'],
];

function v4Reason(host: string): string | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
  if (!m) return undefined;
  const n = ((Number(m[1]) << 24) | (Number(m[2]) << 16) | (Number(m[3]) << 8) | Number(m[4])) >>> 0;
  return V4_RANGES.find(([base, bits]) => n >>> (32 - bits) === base >>> (32 - bits))?.[2];
}

function v6Reason(host: string): string | undefined {
  if (!host.includes(':')) return undefined;
  if (host === '::1') return 'loopback (::1)';
  if (host === '::') return 'an unspecified address (::)';
  // IPv4-mapped (::ffff:7f00:1 as the parser writes ::ffff:127.0.0.1): the IPv4 address decides.
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (mapped) {
    const [a, b] = [parseInt(mapped[1], 16), parseInt(mapped[2], 16)];
    return v4Reason(`${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`);
  }
  const first = parseInt(host.split(':')[0] || '0', 16);
  if ((first & 0xfe00) === 0xfc00) return 'a unique-local address (fc00::/7)';
  if ((first & 0xffc0) === 0xfe80) return 'link-local (fe80::/10)';
  return undefined;
}

/** Why a deployed Worker cannot reach this URL's host, or undefined when nothing in the URL says so. */
export function edgeUnreachableReason(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined; // not a URL: the config's own check says so
  }
  const host = u.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return 'localhost';
  return v4Reason(host) ?? v6Reason(host);
}
