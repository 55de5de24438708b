// claims-enricher: checks the factual claims in a tool result's text against the evidence the
// config carries (src/enrich/claims.ts: sentence rules, exact and numeric-tolerance matching,
// corrections quoted with their source) and tells the model what held; never blocks. The evidence
// lives in the config itself, so it is digested with the chain and the facts in force at any
// decision are on the signed record (docs/enrichers-claims.md).
import { canonicalBytes } from '../../canonical/index.js';
import { checkClaims, parseEvidence, renderClaims } from '../../enrich/claims.js';
import { resultText } from '../../enrich/result-text.js';
import { ConfigError } from '../../errors.js';
import type { Interceptor, MutationOutcome } from '../types.js';
import { ConfigReader } from './_content-config.js';
import { enricherDescriptor } from './provenance-enricher.js';
import type { BuiltinFactory } from './types.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const createClaimsEnricher: BuiltinFactory = ({ name, config, declaration }): Interceptor => {
  new ConfigReader(name, config, ['evidence']).done();
  const raw = isRecord(config) ? config.evidence : undefined;
  if (!isRecord(raw)) throw new ConfigError('ERR_CONFIG', `${name}: config.evidence must be the evidence document (docs/enrichers-claims.md: {"version": 1, "facts": [...]})`, [{ path: '/evidence', message: 'required: an object' }]);
  const evidence = parseEvidence(canonicalBytes(raw), `${name} config.evidence`);
  const descriptor = enricherDescriptor(
    name,
    {
      type: 'mutation',
      description: 'Checks the factual claims in each result against the evidence in its config and annotates the result with the verdicts, a trust score and corrections; never blocks.',
      hooks: [{ events: ['tools/call'], phase: 'response' }],
    },
    declaration,
  );
  return {
    descriptor,
    run(payload): MutationOutcome {
      if (!isRecord(payload) || !Array.isArray(payload.content)) return { modified: false, payload };
      const record = checkClaims(resultText(payload), evidence);
      if (record.counts.claims === 0) return { modified: false, payload }; // nothing the evidence speaks to
      return {
        modified: true,
        payload: {
          ...payload,
          content: [...payload.content, { type: 'text', text: renderClaims(record), annotations: { audience: ['assistant'] } }],
          _meta: { ...(isRecord(payload._meta) ? payload._meta : {}), 'io.vouch/enrichment': record as unknown as Record<string, unknown> },
        },
      };
    },
  };
};
