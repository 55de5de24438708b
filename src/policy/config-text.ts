// Config text (YAML 1.2 or JSON) to a plain value, before parseConfig validates it. Pure: the
// `yaml` package is plain JS, so this runs on Workers too. Every syntax error is listed.
import { LineCounter, parseDocument } from 'yaml';
import { parseJson } from '../canonical/index.js';
import { ConfigError, isVouchError, type Issue } from '../errors.js';

export type ConfigFormat = 'yaml' | 'json';

/** Aliases can expand exponentially ("billion laughs"); a config needs few. */
const MAX_ALIASES = 100;

export function formatOf(fileName: string): ConfigFormat {
  return /\.json$/i.test(fileName) ? 'json' : 'yaml';
}

export function parseConfigText(text: string, format: ConfigFormat, source = 'config'): unknown {
  if (format === 'json') {
    try {
      return parseJson(text);
    } catch (e) {
      const why = e instanceof Error && e.cause instanceof Error ? e.cause.message : isVouchError(e) ? e.message : 'malformed JSON';
      throw new ConfigError('ERR_CONFIG', `${source}: not valid JSON: ${why}`, [{ path: '', message: why }], { cause: e });
    }
  }
  // YAML 1.2 core schema: no timestamps or other non-JSON types; duplicate keys are errors.
  const lines = new LineCounter();
  const doc = parseDocument(text, { version: '1.2', uniqueKeys: true, prettyErrors: false, lineCounter: lines });
  if (doc.errors.length > 0) {
    const issues: Issue[] = doc.errors.map((err) => {
      const pos = lines.linePos(err.pos[0]);
      return { path: '', message: `${pos ? `line ${pos.line}:${pos.col}: ` : ''}${err.message.split('\n')[0]}` };
    });
    throw new ConfigError('ERR_CONFIG', `${source}: not valid YAML:\n${issues.map((i) => `  ${i.message}`).join('\n')}`, issues);
  }
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (e) {
    const why = e instanceof Error ? e.message : 'cannot convert';
    throw new ConfigError('ERR_CONFIG', `${source}: ${why}`, [{ path: '', message: why }], { cause: e });
  }
}
