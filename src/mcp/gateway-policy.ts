// The two chains a gateway runs: the configured one for what the client sends, and its mirror for
// what the server sends (sampling, elicitation, roots), which crosses the boundary the other way.
// The mirror is a config document of its own (directions swapped, same policy set), stored by
// digest like any other, so its decisions replay from the log alone.
import { activatePolicy, type ActivateDeps, type Activated } from '../decide/index.js';
import { buildResolvedDocument, resolveConfigDocument, type ResolvedConfig } from '../policy/index.js';

export interface GatewayPolicies {
  /** Requests from the client (and their responses), as configured. */
  clientToServer: Activated;
  /** Requests from the server: request phase received, response phase sent. */
  serverToClient: Activated;
  close(): Promise<void>;
}

/** The same config with request and response directions swapped. */
export function mirrorConfig(resolved: ResolvedConfig): ResolvedConfig {
  const d = resolved.config.directions;
  const directions = { request: d?.response ?? 'receiving', response: d?.request ?? 'sending' };
  return resolveConfigDocument(buildResolvedDocument({ ...resolved.config, directions }, resolved.policySource));
}

/** Both chains over the same state stores (taint and counters are the session's, whichever way a message goes). */
export async function activateGatewayPolicies(resolved: ResolvedConfig, deps: ActivateDeps): Promise<GatewayPolicies> {
  const clientToServer = await activatePolicy(resolved, deps);
  let serverToClient: Activated;
  try {
    serverToClient = await activatePolicy(mirrorConfig(resolved), deps);
  } catch (e) {
    await clientToServer.close();
    throw e;
  }
  return {
    clientToServer,
    serverToClient,
    close: async () => {
      await Promise.all([clientToServer.close(), serverToClient.close()]);
    },
  };
}
