// llm-guard: authorizes llm/completion (the SEP's LLM call event): a token budget, a message
// budget, a model allow-list, and no secret or card number left in what goes to the model
// (the redactors hook llm/completion and run first; this is the check that they did). Pure.
import type { Interceptor, Json, Message, ValidationOutcome } from '../types.js';
import { buildDescriptor, ConfigReader } from './_content-config.js';
import { findSecrets } from './_patterns.js';
import { findPii } from './_pii-patterns.js';
import { numberPiiKind } from './pii-redactor.js';
import { forEachText } from './_redact.js';
import { formatPath, isRecord } from './_walk.js';
import type { BuiltinFactory } from './types.js';

export const DEFAULT_LLM_MAX_TOKENS = 4096;
/** The names LLM APIs give the output-token cap (OpenAI, Anthropic, MCP sampling, Gemini). */
const TOKEN_KEYS = ['max_tokens', 'maxTokens', 'max_completion_tokens', 'max_output_tokens', 'maxOutputTokens'] as const;
/** The names LLM APIs give the tokens an answer used. */
const USAGE_KEYS = ['output_tokens', 'completion_tokens', 'outputTokens', 'completionTokens'] as const;

export interface LlmGuardConfig {
  maxTokens: number;
  /** Allowed model names; `prefix*` allows a family. Absent: any model. */
  models?: string[];
  maxMessages?: number;
  /** Deny when a secret or a card number is still in the request (default true). */
  denySensitive: boolean;
}

export function parseLlmGuardConfig(name: string, config: Json | undefined): LlmGuardConfig {
  const r = new ConfigReader(name, config, ['maxTokens', 'models', 'maxMessages', 'denySensitive']);
  const maxTokens = r.int('maxTokens', { min: 1 });
  const models = r.strings('models');
  const maxMessages = r.int('maxMessages', { min: 1 });
  const raw = isRecord(config) ? config.denySensitive : undefined;
  if (raw !== undefined && typeof raw !== 'boolean') r.issues.push({ path: '/config/denySensitive', message: 'must be a boolean' });
  r.done();
  const out: LlmGuardConfig = { maxTokens: maxTokens ?? DEFAULT_LLM_MAX_TOKENS, denySensitive: raw !== false };
  if (models) out.models = models;
  if (maxMessages !== undefined) out.maxMessages = maxMessages;
  return out;
}

function modelAllowed(model: string, allowed: readonly string[]): boolean {
  return allowed.some((a) => (a.endsWith('*') ? model.startsWith(a.slice(0, -1)) : model === a));
}

/** The body of the request: the params themselves, or a JSON-RPC message's params. */
function bodyOf(payload: unknown): Record<string, unknown> {
  if (!isRecord(payload)) return {};
  return isRecord(payload.params) && payload.model === undefined && payload.messages === undefined ? payload.params : payload;
}

/** Pure: every budget, allow-list or leak violation of one llm/completion request. */
export function checkLlmRequest(payload: unknown, config: LlmGuardConfig): ValidationOutcome {
  const p = bodyOf(payload);
  const messages: Message[] = [];
  const deny = (message: string, path: string): void => void messages.push({ message, severity: 'error', path });

  // A budget must be stated and within the cap; several cap fields must each be within it.
  const caps = TOKEN_KEYS.filter((k) => p[k] !== undefined);
  if (caps.length === 0) deny(`no token cap (${TOKEN_KEYS.join(' / ')}): there is no budget to check`, 'max_tokens');
  for (const k of caps) {
    const v = p[k];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) deny(`${k} must be a positive integer`, k);
    else if (v > config.maxTokens) deny(`${k} ${v} exceeds the budget of ${config.maxTokens}`, k);
  }

  if (config.models) {
    if (typeof p.model !== 'string') deny('model must be named (the config has a model allow-list)', 'model');
    else if (!modelAllowed(p.model, config.models)) deny(`model '${p.model}' is not in the allow-list`, 'model');
  }

  if (!Array.isArray(p.messages) && p.messages !== undefined) deny('messages must be an array', 'messages');
  if (config.maxMessages !== undefined && Array.isArray(p.messages) && p.messages.length > config.maxMessages) {
    deny(`${p.messages.length} messages exceed the limit of ${config.maxMessages}`, 'messages');
  }

  if (config.denySensitive) {
    const seen = new Set<string>();
    forEachText(p, (text, path) => {
      const kinds = [...findSecrets(text).map((h) => h.kind), ...findPii(text, new Set(['card'])).map((h) => h.kind)];
      for (const kind of kinds) {
        const where = formatPath(path);
        if (seen.has(`${kind}@${where}`)) continue;
        seen.add(`${kind}@${where}`);
        deny(`a ${kind} would reach the model (redact it first)`, where);
      }
    });
    numbersOf(p, [], (n, key, path) => {
      if (numberPiiKind(n, key, new Set(['card'])) === 'card') deny('a card number would reach the model (redact it first)', formatPath(path));
    });
  }

  return messages.length === 0 ? { valid: true } : { valid: false, severity: 'error', messages };
}

/** Pure: the answer names an allowed model and used no more tokens than the budget. */
export function checkLlmResponse(payload: unknown, config: LlmGuardConfig): ValidationOutcome {
  const p = bodyOf(payload);
  const messages: Message[] = [];
  const deny = (message: string, path: string): void => void messages.push({ message, severity: 'error', path });
  if (config.models && typeof p.model === 'string' && !modelAllowed(p.model, config.models)) deny(`answered by model '${p.model}', which is not in the allow-list`, 'model');
  const usage = isRecord(p.usage) ? p.usage : {};
  for (const k of USAGE_KEYS) {
    const v = usage[k];
    if (typeof v === 'number' && v > config.maxTokens) deny(`usage.${k} ${v} exceeds the budget of ${config.maxTokens}`, `usage.${k}`);
  }
  return messages.length === 0 ? { valid: true } : { valid: false, severity: 'error', messages };
}

function numbersOf(v: unknown, path: (string | number)[], visit: (n: number, key: string | undefined, path: (string | number)[]) => void): void {
  if (typeof v === 'number') visit(v, typeof path.at(-1) === 'string' ? (path.at(-1) as string) : undefined, path);
  else if (Array.isArray(v)) v.forEach((x, i) => numbersOf(x, [...path, i], visit));
  else if (isRecord(v)) for (const k of Object.keys(v)) numbersOf(v[k], [...path, k], visit);
}

export const createLlmGuard: BuiltinFactory = ({ name, config, declaration }): Interceptor => {
  const parsed = parseLlmGuardConfig(name, config);
  const descriptor = buildDescriptor(
    name,
    {
      type: 'validation',
      description: 'Authorizes LLM completions: token and message budgets, a model allow-list, nothing sensitive sent.',
      hooks: [
        { events: ['llm/completion'], phase: 'request' },
        { events: ['llm/completion'], phase: 'response' },
      ],
    },
    declaration,
  );
  return {
    descriptor,
    authorizes: true,
    run: (payload, ctx) => (ctx.phase === 'request' ? checkLlmRequest(payload, parsed) : checkLlmResponse(payload, parsed)),
  };
};
