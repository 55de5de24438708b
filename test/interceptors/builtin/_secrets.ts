// Fake credentials in the public formats the detectors know (the conformance suite's canaries
// where it has one). Prefixes are split so repository secret scanners do not flag the tests.
const j = (...parts: string[]): string => parts.join('');

export const STRIPE = j('sk_', 'live_', '4eC7aRm9Kx2bNw5pQj8sYd');
export const GITHUB_PAT = j('ghp', '_Xa2bC3dEf4gH5iJk6Lm7nN8oP');
export const GITHUB_FINE = j('github', '_pat_', '11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF');
export const AWS_KEY_ID = j('AKIA', '5MZXN8QRF3WBY6OE');
export const AWS_TEMP_KEY_ID = j('ASIA', 'Y34FZKBOKMUTVV7A');
export const AWS_SECRET = j('wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCYEXAMPLEKEY');
export const SLACK_BOT = j('xoxb', '-17345628901-AbCdEfGhIjKlMnOp');
export const SLACK_APP = j('xapp', '-1-A0123456789-0123456789012-abcdef0123456789');
export const GOOGLE = j('AIza', 'SyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe');
export const STRIPE_RESTRICTED = j('rk_', 'live_', '51HGf0KxLPq3NmRs7TvW9yZ');
// {"alg":"HS256","typ":"JWT"}.{"sub":"1234567890","name":"John Doe","iat":1516239022}.sig
export const JWT = j(
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9',
  '.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ',
  '.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
);
export const PEM = [
  j('-----BEGIN ', 'RSA PRIVATE KEY-----'),
  'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun',
  'VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK',
  j('-----END ', 'RSA PRIVATE KEY-----'),
].join('\n');
