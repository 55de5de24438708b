// resultText: the prose of a tools/call result the checker reads, and nothing else.
import { describe, expect, it } from 'vitest';
import { MAX_TEXT_CHARS } from '../../src/enrich/claims.js';
import { resultText } from '../../src/enrich/result-text.js';

describe('resultText', () => {
  it('joins the text blocks by blank lines; images, resources, structuredContent and non-strings are not read', () => {
    const result = {
      content: [{ type: 'text', text: 'One.' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }, { type: 'text', text: 42 }, null, { type: 'resource', resource: { uri: 'x', text: 'Hidden.' } }, { type: 'text', text: 'Two.' }],
      structuredContent: { text: 'Not prose.' },
    };
    expect(resultText(result)).toBe('One.\n\nTwo.');
  });

  it('anything not a result with a content array reads as no text', () => {
    for (const p of [null, undefined, 'text', 42, [], {}, { content: 'x' }, { content: {} }]) expect(resultText(p)).toBe('');
  });

  it(`stops at ${MAX_TEXT_CHARS} characters, however many blocks or however long one is`, () => {
    expect(resultText({ content: [{ type: 'text', text: 'x'.repeat(10 * MAX_TEXT_CHARS) }] })).toHaveLength(MAX_TEXT_CHARS);
    expect(resultText({ content: Array.from({ length: 100_000 }, () => ({ type: 'text', text: 'abcdefgh' })) })).toHaveLength(MAX_TEXT_CHARS);
  });
});
