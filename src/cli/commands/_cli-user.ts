// Who runs a CLI command that writes an entry, as the entry records it (`by`): the local account.
// Not authenticated: whoever holds the data directory holds the keys.
import { userInfo } from 'node:os';

export function cliUser(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
}
