// The content built-ins by name: redactors, guards (sampling, LLM, roots...), rate-limit and audit-observer. The chain
// config refers to them by these names; `secretless-redactor` is the conformance suite's name
// for the secret redactor (its behavior fixtures bind it and `cross-boundary-guard`).
import { createAuditObserver } from './audit-observer.js';
import { createCrossBoundaryGuard } from './cross-boundary-guard.js';
import { createLlmGuard } from './llm-guard.js';
import { createPiiRedactor } from './pii-redactor.js';
import { createClaimsEnricher } from './claims-enricher.js';
import { createProvenanceEnricher } from './provenance-enricher.js';
import { createRateLimit } from './rate-limit.js';
import { createRootsGuard } from './roots-guard.js';
import { createSamplingGuard } from './sampling-guard.js';
import { createSecretRedactor } from './secret-redactor.js';
import { createSensitiveFieldGuard } from './sensitive-field-guard.js';
import type { BuiltinFactory } from './types.js';

export const contentBuiltins: Record<string, BuiltinFactory> = {
  'pii-redactor': createPiiRedactor,
  'secret-redactor': createSecretRedactor,
  'secretless-redactor': createSecretRedactor,
  'cross-boundary-guard': createCrossBoundaryGuard,
  'sensitive-field-guard': createSensitiveFieldGuard,
  'sampling-guard': createSamplingGuard,
  'llm-guard': createLlmGuard,
  'roots-guard': createRootsGuard,
  'rate-limit': createRateLimit,
  'audit-observer': createAuditObserver,
  'provenance-enricher': createProvenanceEnricher,
  'claims-enricher': createClaimsEnricher,
};
