// The chain config the Worker runs, as `npm run build:config` embedded it (wrangler.toml [build]
// runs it before every `wrangler dev` and `wrangler deploy`): the config text and policy texts,
// settings unexpanded; the Worker resolves them from its bindings when an isolate starts (entry.ts).
import { parseEmbeddedConfig, type EmbeddedConfig } from '../policy/config-embedded.js';
import generated from './config.generated.json' with { type: 'json' };

export const WORKER_CONFIG: EmbeddedConfig = parseEmbeddedConfig(generated, 'src/worker/config.generated.json');
