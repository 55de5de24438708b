// sampling-guard: bounds what an MCP server may make the client's LLM do through
// sampling/createMessage: a token budget, a model allow-list over modelPreferences.hints, an
// optional cap on messages, and optionally which includeContext values are allowed.
import type { Interceptor, Json, Message, ValidationOutcome } from '../types.js';
import { buildDescriptor, ConfigReader } from './_content-config.js';
import { isRecord } from './_walk.js';
import type { BuiltinFactory } from './types.js';

export const DEFAULT_MAX_TOKENS = 4096;
export const CONTEXT_VALUES = ['none', 'thisServer', 'allServers'] as const;
type IncludeContext = (typeof CONTEXT_VALUES)[number];

export interface SamplingGuardConfig {
  maxTokens: number;
  /** Allowed model names; `prefix*` allows a family. Absent: any model. */
  models?: string[];
  maxMessages?: number;
  /** Allowed includeContext values. Absent: any. */
  includeContext?: IncludeContext[];
}

export function parseSamplingGuardConfig(name: string, config: Json | undefined): SamplingGuardConfig {
  const r = new ConfigReader(name, config, ['maxTokens', 'models', 'maxMessages', 'includeContext']);
  const maxTokens = r.int('maxTokens', { min: 1 });
  const models = r.strings('models');
  const maxMessages = r.int('maxMessages', { min: 1 });
  const includeContext = r.enumList('includeContext', CONTEXT_VALUES);
  r.done();
  const out: SamplingGuardConfig = { maxTokens: maxTokens ?? DEFAULT_MAX_TOKENS };
  if (models) out.models = models;
  if (maxMessages !== undefined) out.maxMessages = maxMessages;
  if (includeContext) out.includeContext = includeContext;
  return out;
}

function modelAllowed(model: string, allowed: readonly string[]): boolean {
  return allowed.some((a) => (a.endsWith('*') ? model.startsWith(a.slice(0, -1)) : model === a));
}

/** Pure: every budget or allow-list violation of one sampling/createMessage request. */
export function checkSamplingRequest(payload: unknown, config: SamplingGuardConfig): ValidationOutcome {
  const p = isRecord(payload) ? payload : {};
  const messages: Message[] = [];
  const deny = (message: string, path: string): void => {
    messages.push({ message, severity: 'error', path });
  };

  // maxTokens is required by MCP; without it there is no budget to check, so fail closed.
  const maxTokens = p.maxTokens;
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1) {
    deny('maxTokens must be a positive integer', 'maxTokens');
  } else if (maxTokens > config.maxTokens) {
    deny(`maxTokens ${maxTokens} exceeds the budget of ${config.maxTokens}`, 'maxTokens');
  }

  if (config.models) {
    const prefs = isRecord(p.modelPreferences) ? p.modelPreferences : {};
    const hints = Array.isArray(prefs.hints) ? prefs.hints : [];
    hints.forEach((h, i) => {
      const model = isRecord(h) ? h.name : undefined;
      if (typeof model === 'string' && !modelAllowed(model, config.models!)) {
        deny(`model '${model}' is not in the allow-list`, `modelPreferences.hints.${i}.name`);
      }
    });
  }

  if (config.maxMessages !== undefined && Array.isArray(p.messages) && p.messages.length > config.maxMessages) {
    deny(`${p.messages.length} messages exceed the limit of ${config.maxMessages}`, 'messages');
  }

  if (config.includeContext && typeof p.includeContext === 'string') {
    if (!(config.includeContext as string[]).includes(p.includeContext)) {
      deny(`includeContext '${p.includeContext}' is not allowed`, 'includeContext');
    }
  }

  if (messages.length === 0) return { valid: true };
  return { valid: false, severity: 'error', messages };
}

export const createSamplingGuard: BuiltinFactory = ({ name, config, declaration }): Interceptor => {
  const parsed = parseSamplingGuardConfig(name, config);
  const descriptor = buildDescriptor(
    name,
    {
      type: 'validation',
      description: 'Enforces a token budget and a model allow-list on sampling requests.',
      hooks: [{ events: ['sampling/createMessage'], phase: 'request' }],
    },
    declaration,
  );
  return { descriptor, authorizes: true, run: (payload) => checkSamplingRequest(payload, parsed) };
};
