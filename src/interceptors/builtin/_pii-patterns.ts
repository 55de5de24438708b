// PII detectors for pii-redactor: phone numbers, e-mail addresses, card numbers (Luhn), national
// ids (US SSN, UK NINO, Spanish DNI/NIE) and IBANs (mod 97). Built for precision: every numeric
// kind needs a separator shape or a checksum, so dates, timestamps, versions, UUIDs and prices pass.
import { type Detector, type Hit, resolveOverlaps, runDetectors } from './_patterns.js';
import { ibanLength } from './_iban.js';

export const PII_KINDS = ['iban', 'card', 'national_id', 'email', 'phone'] as const;
export type PiiKind = (typeof PII_KINDS)[number];

const DETECTORS: Detector<PiiKind>[] = [
  { kind: 'iban', re: /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,32}/g },
  // 13-19 digits, single spaces or dashes between groups; not part of a longer number or a
  // decimal, nor the body of an IBAN ("DE89 3704 ...") that failed its own check.
  { kind: 'card', re: /(?<![\w-]|\d[.,]|[A-Z]{2}\d{2} )\d(?:[ -]?\d){12,30}(?!\w|[.,]\d)/g },
  // US SSN, dashed or spaced the same way throughout.
  { kind: 'national_id', re: /(?<![\w-])\d{3}([- ])\d{2}\1\d{4}(?!\w|-\d)/g, check: isSsn },
  // UK National Insurance number (HMRC format rules on the prefix letters).
  {
    kind: 'national_id',
    re: /(?<![A-Za-z0-9])[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])/g,
    check: isNino,
  },
  // Spanish DNI (8 digits) and NIE (X/Y/Z + 7 digits), each with its mod-23 check letter.
  { kind: 'national_id', re: /(?<![A-Za-z0-9])(?:\d{8}|[XYZ]\d{7})-?[A-Z](?![A-Za-z0-9])/g, check: isDniOrNie },
  { kind: 'email', re: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9][A-Za-z0-9._%+-]*@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,24}(?![A-Za-z0-9-])/g },
  // North American numbers: need a separator, parentheses or a +1 prefix (a bare 10-digit run is
  // more often an id than a phone).
  {
    kind: 'phone',
    re: /(?<![\w+@/-]|\d[.,])(?:\+?1[ .-]?)?(?:\(\d{3}\) ?|\d{3}[ .-]?)\d{3}[ .-]?\d{4}(?![\w@]|[-./:]\d)/g,
    check: isNanp,
  },
  // International numbers: a leading +, 8 to 15 digits (E.164).
  { kind: 'phone', re: /(?<![\w+])\+\d[\d ().-]{6,22}\d(?![\w]|[-./:]\d)/g, check: isInternational },
];

const PRIORITY: Record<PiiKind, number> = { iban: 0, card: 1, national_id: 2, email: 3, phone: 4 };

/** Every PII occurrence in `text`, non-overlapping (IBAN > card > national id > e-mail > phone). */
export function findPii(text: string, kinds?: ReadonlySet<PiiKind>): Hit<PiiKind>[] {
  const detectors = kinds ? DETECTORS.filter((d) => kinds.has(d.kind)) : DETECTORS;
  const hits = runDetectors(text, detectors).flatMap((h) => refine(text, h));
  return resolveOverlaps(hits, (a, b) => PRIORITY[a.kind] - PRIORITY[b.kind]);
}

// Cards and IBANs are matched greedily, then cut back to the longest valid group-aligned prefix:
// "4111 1111 1111 1111 123" (a CVV after the number) is still a card.
function refine(text: string, h: Hit<PiiKind>): Hit<PiiKind>[] {
  if (h.kind === 'card') return cardPrefix(h);
  if (h.kind === 'iban') return ibanPrefix(text, h);
  return [h];
}

function cardPrefix(h: Hit<PiiKind>): Hit<PiiKind>[] {
  const ends: number[] = [];
  for (let i = 0; i < h.value.length; i++) {
    if (/\d/.test(h.value[i]) && !/\d/.test(h.value[i + 1] ?? '')) ends.push(i + 1);
  }
  for (const end of ends.reverse()) {
    const digits = h.value.slice(0, end).replace(/\D/g, '');
    // Issuer digits 2-6 (Mastercard 2-series, Amex/Diners/JCB, Visa, Mastercard, Discover/UnionPay):
    // keeps millisecond timestamps and other 1- or 7-9-led ids out even when they pass Luhn.
    if (digits.length >= 13 && digits.length <= 19 && /^[2-6]/.test(digits) && luhnValid(digits)) {
      return [{ ...h, end: h.start + end, value: h.value.slice(0, end) }];
    }
  }
  return [];
}

function ibanPrefix(text: string, h: Hit<PiiKind>): Hit<PiiKind>[] {
  const length = ibanLength(h.value.slice(0, 2));
  if (length === undefined) return [];
  let count = 0;
  for (let i = 0; i < h.value.length; i++) {
    if (h.value[i] !== ' ') count++;
    if (count === length) {
      const end = h.start + i + 1;
      // The IBAN must end where its group does, not in the middle of a longer token.
      if (/[A-Za-z0-9]/.test(text[end] ?? '')) return [];
      const value = h.value.slice(0, i + 1);
      return mod97(value.replace(/ /g, '')) === 1 ? [{ ...h, end, value }] : [];
    }
  }
  return [];
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** ISO 13616 check: move the first four characters to the end, letters to 10..35, mod 97. */
export function mod97(iban: string): number {
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rem = 0;
  for (const ch of moved) {
    const n = ch >= 'A' && ch <= 'Z' ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    rem = n >= 10 ? (rem * 100 + n) % 97 : (rem * 10 + n) % 97;
  }
  return rem;
}

function isSsn(v: string): boolean {
  const [area, group, serial] = v.split(/[- ]/);
  return area !== '000' && area !== '666' && area[0] !== '9' && group !== '00' && serial !== '0000';
}

function isNino(v: string): boolean {
  return !['BG', 'GB', 'KN', 'NK', 'NT', 'TN', 'ZZ'].includes(v.slice(0, 2));
}

function isDniOrNie(v: string): boolean {
  const s = v.replace('-', '');
  const num = Number(s.slice(0, -1).replace(/^[XYZ]/, (c) => String('XYZ'.indexOf(c))));
  return 'TRWAGMYFPDXBNJZSQVHLCKE'[num % 23] === s.slice(-1);
}

function isNanp(v: string): boolean {
  const digits = v.replace(/\D/g, '');
  const national = digits.length === 11 ? digits.slice(1) : digits;
  if (national.length !== 10 || !/^[2-9]\d{2}[2-9]/.test(national)) return false;
  return /[^\d]/.test(v.replace(/^\+/, '')) || v.startsWith('+');
}

function isInternational(v: string): boolean {
  const digits = v.replace(/\D/g, '').length;
  if (digits < 8 || digits > 15) return false;
  // One separator at a time: "+40.7128 -74.0060" is a coordinate pair, not a number.
  if (/[ .-]{2}|\(\)|\)\(/.test(v.replace(/\) /g, ')').replace(/ \(/g, '('))) return false;
  const open = (v.match(/\(/g) ?? []).length;
  return open === (v.match(/\)/g) ?? []).length && open <= 1;
}
