// A tiny in-memory RFC 6962 tree and a signed checkpoint over it, for the witness tests.
import { utf8 } from '../../src/canonical/index.js';
import { consistencyProof, hashChildren, hashLeaf, rootAt, signCheckpoint, type Hash, type NodeReader, type NoteSigner } from '../../src/log/index.js';

export class MemTree implements NodeReader {
  leaves: Hash[] = [];
  constructor(public origin: string, private signers: NoteSigner[]) {}
  add(...data: string[]): this {
    for (const d of data) this.leaves.push(hashLeaf(utf8.encode(d)));
    return this;
  }
  node(level: number, index: number): Hash {
    if (level === 0) return this.leaves[index];
    return hashChildren(this.node(level - 1, 2 * index), this.node(level - 1, 2 * index + 1));
  }
  get size(): number {
    return this.leaves.length;
  }
  root(size = this.size): Hash {
    return rootAt(size, this);
  }
  proof(from: number, to = this.size): Hash[] {
    return from === 0 || from === to ? [] : consistencyProof(from, to, this);
  }
  async checkpoint(size = this.size): Promise<string> {
    return signCheckpoint({ origin: this.origin, size, root: this.root(size), extensions: [] }, this.signers);
  }
}
