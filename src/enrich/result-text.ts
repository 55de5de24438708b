// The prose of a tools/call result the claim checker reads: its text content blocks, in order.
// structuredContent, resources and images are not prose and are not read.
import { MAX_TEXT_CHARS } from './claims.js';
import { sliceSafe } from './_text.js';

/** The text blocks of a CallToolResult joined by blank lines, cut at MAX_TEXT_CHARS; '' when there are none. */
export function resultText(payload: unknown): string {
  const content = (payload as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return '';
  let out = '';
  for (const block of content) {
    if (out.length >= MAX_TEXT_CHARS) break;
    const b = block as { type?: unknown; text?: unknown } | null;
    if (b?.type !== 'text' || typeof b.text !== 'string') continue;
    out += (out.length > 0 ? '\n\n' : '') + sliceSafe(b.text, MAX_TEXT_CHARS);
  }
  return sliceSafe(out, MAX_TEXT_CHARS);
}
