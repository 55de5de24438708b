import { describe, expect, it } from 'vitest';
import { createSamplingGuard, DEFAULT_MAX_TOKENS } from '../../../src/interceptors/builtin/sampling-guard.js';
import type { ValidationOutcome } from '../../../src/interceptors/types.js';
import { ctxOf, make } from './_content-ctx.js';

const ctx = ctxOf('sampling/createMessage', 'request');
const request = (extra: Record<string, unknown> = {}) => ({
  messages: [{ role: 'user', content: { type: 'text', text: 'Summarise the attached log in three bullet points.' } }],
  systemPrompt: 'You are a concise assistant.',
  includeContext: 'thisServer',
  maxTokens: 800,
  modelPreferences: { hints: [{ name: 'claude-3-5-sonnet' }], intelligencePriority: 0.8, speedPriority: 0.3 },
  ...extra,
});

describe('sampling-guard', () => {
  it('allows a request within budget', async () => {
    expect(await make(createSamplingGuard).run(request(), ctx)).toEqual({ valid: true });
  });

  it('denies a request for 100,000 tokens', async () => {
    const out = (await make(createSamplingGuard).run(request({ maxTokens: 100_000 }), ctx)) as ValidationOutcome;
    expect(out).toEqual({
      valid: false,
      severity: 'error',
      messages: [{ message: `maxTokens 100000 exceeds the budget of ${DEFAULT_MAX_TOKENS}`, severity: 'error', path: 'maxTokens' }],
    });
  });

  it('uses the configured budget, and fails closed on a missing or bad maxTokens', async () => {
    const guard = make(createSamplingGuard, { maxTokens: 500 });
    expect(((await guard.run(request(), ctx)) as ValidationOutcome).valid).toBe(false);
    expect(((await guard.run(request({ maxTokens: 500 }), ctx)) as ValidationOutcome).valid).toBe(true);
    for (const maxTokens of [undefined, '100', 0, 1.5]) {
      const out = (await guard.run(request({ maxTokens }), ctx)) as ValidationOutcome;
      expect(out.messages?.[0]).toEqual({ message: 'maxTokens must be a positive integer', severity: 'error', path: 'maxTokens' });
    }
  });

  it('enforces the model allow-list over hints, with prefix wildcards', async () => {
    const guard = make(createSamplingGuard, { models: ['claude-3-5-sonnet', 'gpt-4o-mini*'] });
    expect(((await guard.run(request(), ctx)) as ValidationOutcome).valid).toBe(true);
    const hints = [{ name: 'gpt-4o-mini-2024-07-18' }, { name: 'o1-preview' }];
    const out = (await guard.run(request({ modelPreferences: { hints } }), ctx)) as ValidationOutcome;
    expect(out.messages).toEqual([{ message: "model 'o1-preview' is not in the allow-list", severity: 'error', path: 'modelPreferences.hints.1.name' }]);
    // No hints: the client chooses, nothing to refuse.
    expect(((await guard.run(request({ modelPreferences: undefined }), ctx)) as ValidationOutcome).valid).toBe(true);
  });

  it('caps messages and includeContext when configured, reporting every violation', async () => {
    const guard = make(createSamplingGuard, { maxMessages: 1, includeContext: ['none', 'thisServer'] });
    const two = [...request().messages, { role: 'assistant', content: { type: 'text', text: 'ok' } }];
    const out = (await guard.run(request({ messages: two, includeContext: 'allServers', maxTokens: 9000 }), ctx)) as ValidationOutcome;
    expect(out.messages?.map((m) => m.path)).toEqual(['maxTokens', 'messages', 'includeContext']);
  });

  it('is deterministic and rejects bad config', async () => {
    const guard = make(createSamplingGuard);
    const p = request({ maxTokens: 5000 });
    expect(await guard.run(structuredClone(p), ctx)).toEqual(await guard.run(p, ctx));
    expect(() => make(createSamplingGuard, { maxTokens: -1, models: 'gpt', maxMessages: 0 })).toThrow(
      expect.objectContaining({
        code: 'ERR_CONFIG',
        issues: [
          expect.objectContaining({ path: '/config/maxTokens' }),
          expect.objectContaining({ path: '/config/models' }),
          expect.objectContaining({ path: '/config/maxMessages' }),
        ],
      }),
    );
  });
});
