// llm-guard: the token, message and model budgets of llm/completion, and its refusal of a request
// that still carries a secret or a card number (issue 14 item 2's reproduction).
import { describe, expect, it } from 'vitest';
import { checkLlmRequest, checkLlmResponse, createLlmGuard, parseLlmGuardConfig } from '../../../src/interceptors/builtin/llm-guard.js';
import { redactPii } from '../../../src/interceptors/builtin/pii-redactor.js';
import { redactSecrets } from '../../../src/interceptors/builtin/secret-redactor.js';
import { PII_KINDS } from '../../../src/interceptors/builtin/_pii-patterns.js';
import { SECRET_KINDS } from '../../../src/interceptors/builtin/_patterns.js';
import { ctxOf, denied, make } from './_content-ctx.js';
import * as S from './_secrets.js';

const config = parseLlmGuardConfig('llm', { maxTokens: 4000, models: ['claude-*', 'gpt-4o-mini'], maxMessages: 3 });
const ok = { model: 'claude-sonnet-4', max_tokens: 1000, messages: [{ role: 'user', content: 'hello' }] };

describe('llm-guard', () => {
  it('allows a bounded request to an allowed model', () => {
    expect(checkLlmRequest(ok, config)).toEqual({ valid: true });
    expect(checkLlmRequest({ ...ok, max_tokens: undefined, maxTokens: 10 }, config)).toEqual({ valid: true });
  });

  it("denies the issue's request: a card number, an AWS key and max_tokens 1e6", () => {
    const bad = { model: 'claude-sonnet-4', max_tokens: 1e6, messages: [{ role: 'user', content: `card 4111 1111 1111 1111, key ${S.AWS_KEY_ID}` }] };
    const r = checkLlmRequest(bad, config);
    expect(r.valid).toBe(false);
    expect(r.messages?.map((m) => m.path)).toEqual(['max_tokens', 'messages.0.content', 'messages.0.content']);
    expect(JSON.stringify(r)).not.toContain(S.AWS_KEY_ID);
    // After the redactors (which hook llm/completion and run first), only the budget is left to deny.
    const redacted = redactSecrets(redactPii(bad, new Set(PII_KINDS)).payload, new Set(SECRET_KINDS)).payload;
    expect(checkLlmRequest(redacted, config).messages?.map((m) => m.path)).toEqual(['max_tokens']);
  });

  it.each([
    ['no token cap at all', { model: 'claude-x', messages: [] }, 'max_tokens'],
    ['a second cap over budget', { ...ok, max_completion_tokens: 9000 }, 'max_completion_tokens'],
    ['a float cap', { ...ok, max_tokens: 10.5 }, 'max_tokens'],
    ['a string cap', { ...ok, max_tokens: '10' }, 'max_tokens'],
    ['a model off the list', { ...ok, model: 'gpt-4o' }, 'model'],
    ['no model while a list is configured', { max_tokens: 10, messages: [] }, 'model'],
    ['too many messages', { ...ok, messages: [1, 2, 3, 4].map(() => ({ role: 'user', content: 'x' })) }, 'messages'],
    ['messages not an array', { ...ok, messages: 'x' }, 'messages'],
    ['a card as a JSON number', { ...ok, metadata: { card: 4111111111111111 } }, 'metadata.card'],
    ['a secret as a key', { ...ok, metadata: { [S.GITHUB_PAT]: 1 } }, `metadata.${S.GITHUB_PAT}`],
  ])('denies %s', (_what, payload, path) => {
    const r = checkLlmRequest(payload, config);
    expect(r.valid).toBe(false);
    expect(r.messages?.map((m) => m.path)).toContain(path);
  });

  it('checks the answer: model and usage within the budget', () => {
    expect(checkLlmResponse({ model: 'claude-sonnet-4', usage: { output_tokens: 10 } }, config)).toEqual({ valid: true });
    expect(checkLlmResponse({ model: 'o1', usage: { completion_tokens: 5000 } }, config).messages?.map((m) => m.path)).toEqual(['model', 'usage.completion_tokens']);
  });

  it('is an authorizing validation on both phases of llm/completion, and refuses bad config', async () => {
    const i = make(createLlmGuard, { maxTokens: 100 });
    expect(i.authorizes).toBe(true);
    expect(i.descriptor.hooks).toEqual([{ events: ['llm/completion'], phase: 'request' }, { events: ['llm/completion'], phase: 'response' }]);
    expect(denied(await i.run({ max_tokens: 101 }, ctxOf('llm/completion', 'request')))).toBe(true);
    expect(() => make(createLlmGuard, { maxTokens: 0 })).toThrow(expect.objectContaining({ code: 'ERR_CONFIG' }));
    expect(() => make(createLlmGuard, { denySensitive: 'no' })).toThrow(expect.objectContaining({ code: 'ERR_CONFIG' }));
    expect(() => make(createLlmGuard, { budget: 1 })).toThrow(expect.objectContaining({ code: 'ERR_CONFIG' }));
  });
});
