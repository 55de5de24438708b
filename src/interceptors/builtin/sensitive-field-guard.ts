// sensitive-field-guard: an MCP server may not use elicitation to ask the user for bank, card,
// password or national-id data (phishing through the client UI). Inspects every property of
// `requestedSchema` by name, title and description; a description is prose, so a category named
// only in a negated clause ("do not give us your pin") is not a request for it.
import type { Interceptor, Json, Message, ValidationOutcome } from '../types.js';
import { buildDescriptor, ConfigReader } from './_content-config.js';
import { isRecord } from './_walk.js';
import type { BuiltinFactory } from './types.js';

export const FIELD_CATEGORIES = ['bank', 'card', 'password', 'national_id'] as const;
export type FieldCategory = (typeof FIELD_CATEGORIES)[number];

// Matched against the normalised words of a name, title or description ("routingNumber" ->
// " routing number "); word boundaries keep "spinner" or "opinion" from matching "pin".
const CATEGORY_PATTERNS: Record<FieldCategory, RegExp> = {
  bank: / (routing (number|no|code)|aba|(bank )?account (number|no|num)|acct (number|no|num)|iban|sort code|swift( bic)? code|bic( code)?|bank (details|account|number|code)) /,
  card: / (card (number|no|num)|credit card|debit card|cc (number|num)|pan|cvv2?|cvc2?|csc|card (security|verification) (code|value)|card (expiry|expiration)( date)?) /,
  password: / (password|passwd|pwd|passcode|passphrase|pin( code| number)?|one time (password|code)|otp|2fa code|mfa code|security answer|secret (question|answer)) /,
  national_id: / (ssn|social security( number)?|social insurance( number)?|sin number|national (id|identity|identification|insurance)( number| no)?|nino|passport( number| no)?|tax (id|identification)( number)?|(driver'?s?|driving) licen[cs]e( number)?|dni|id card number) /,
};

export interface SensitiveFieldConfig {
  categories: FieldCategory[];
  /** Property names that are known to be fine for this deployment. */
  allow: string[];
}

export function parseSensitiveFieldConfig(name: string, config: Json | undefined): SensitiveFieldConfig {
  const r = new ConfigReader(name, config, ['categories', 'allow']);
  const categories = r.enumList('categories', FIELD_CATEGORIES);
  const allow = r.strings('allow');
  r.done();
  return { categories: categories ?? [...FIELD_CATEGORIES], allow: allow ?? [] };
}

/** "routingNumber", "bank_routing-no" -> " routing number ", " bank routing no ". */
export function normalizeWords(text: string): string {
  const words = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .replace(/[^a-z0-9']+/g, ' ')
    .trim();
  return ` ${words} `;
}

export function categoryOf(texts: string[], categories: readonly FieldCategory[]): FieldCategory | undefined {
  const normalized = texts.map(normalizeWords);
  return categories.find((c) => normalized.some((t) => CATEGORY_PATTERNS[c].test(t)));
}

// A clause is what sentence punctuation and brackets delimit; commas do not (lists stay in their clause).
const CLAUSE_BREAK = /[.;:!?()[\]{}\n]+/;
const VERB = / (give|share|enter|send|provide|include|type|tell|disclose|reveal|submit|put|fill|write|use)(s|ing)? /g;
const NEGATED = / (not|never|don't|dont|no need to|do not ever|never ever)$/;

/** The words before a match say "do not give/share/enter ..." with no other verb between. */
function negated(prefix: string): boolean {
  let last: RegExpExecArray | undefined;
  for (const m of prefix.matchAll(VERB)) last = m as RegExpExecArray;
  return last !== undefined && NEGATED.test(prefix.slice(0, last.index));
}

/**
 * The category a prose description asks for. A match counts unless its clause says not to
 * give it ("do not give us your phone number, pin, or ..."): a negation right before the last
 * sharing verb that precedes the match. "Don't worry, enter your PIN" still counts.
 */
export function categoryOfProse(text: string, categories: readonly FieldCategory[]): FieldCategory | undefined {
  const clauses = text.split(CLAUSE_BREAK).map(normalizeWords);
  return categories.find((c) =>
    clauses.some((clause) => {
      const pattern = new RegExp(CATEGORY_PATTERNS[c].source, 'g');
      // Every occurrence in the clause: one that is not negated is enough.
      for (let m = pattern.exec(clause); m !== null; m = pattern.exec(clause)) {
        if (!negated(clause.slice(0, m.index + 1))) return true;
        pattern.lastIndex = m.index + 1;
      }
      return false;
    }),
  );
}

/** Pure: one error message per sensitive property, at any nesting depth of the schema. */
export function checkRequestedSchema(payload: unknown, config: SensitiveFieldConfig): ValidationOutcome {
  const messages: Message[] = [];
  const schema = isRecord(payload) ? payload.requestedSchema : undefined;
  visit(schema, 'requestedSchema');
  if (messages.length === 0) return { valid: true };
  return { valid: false, severity: 'error', messages };

  function visit(node: unknown, path: string): void {
    if (!isRecord(node) || !isRecord(node.properties)) return;
    for (const [prop, def] of Object.entries(node.properties)) {
      const propPath = `${path}.properties.${prop}`;
      if (!config.allow.includes(prop)) {
        // Name and title are labels; the description is prose (see categoryOfProse).
        const labels = [prop];
        if (isRecord(def) && typeof def.title === 'string') labels.push(def.title);
        const description = isRecord(def) && typeof def.description === 'string' ? def.description : undefined;
        const category = categoryOf(labels, config.categories) ?? (description === undefined ? undefined : categoryOfProse(description, config.categories));
        if (category) {
          messages.push({
            message: `elicitation must not request ${category.replace('_', '-')} data from the user (field '${prop}')`,
            severity: 'error',
            path: propPath,
          });
        }
      }
      visit(def, propPath);
    }
  }
}

export const createSensitiveFieldGuard: BuiltinFactory = ({ name, config, declaration }): Interceptor => {
  const parsed = parseSensitiveFieldConfig(name, config);
  const descriptor = buildDescriptor(
    name,
    {
      type: 'validation',
      description: 'Denies elicitation requests that ask the user for bank, card, password or national-id data.',
      hooks: [{ events: ['elicitation/create'], phase: 'request' }],
    },
    declaration,
  );
  return { descriptor, authorizes: true, run: (payload) => checkRequestedSchema(payload, parsed) };
};
