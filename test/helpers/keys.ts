// Test keys from fixed seeds (deterministic), signing in-process.
import { createEd25519Signer, createEd25519Verifier, createMldsaSigner, createMldsaVerifier, ed25519PublicKeyFromSeed, mldsaKeyFromSeed } from '../../src/crypto/index.js';
import { noteSignerFor, noteVerifierFor, type NoteSigner, type NoteVerifier } from '../../src/log/index.js';

export function testKeys(name = 'test.vouch', seedByte = 7): { signers: NoteSigner[]; verifiers: NoteVerifier[]; mldsaPublic: Uint8Array } {
  const seed = new Uint8Array(32).fill(seedByte);
  const edSeed = new Uint8Array(32).fill(seedByte + 1);
  const pub = mldsaKeyFromSeed(seed).publicKey;
  return {
    signers: [noteSignerFor(name, createMldsaSigner(seed)), noteSignerFor(name, createEd25519Signer(edSeed))],
    verifiers: [noteVerifierFor(name, createMldsaVerifier(pub)), noteVerifierFor(name, createEd25519Verifier(ed25519PublicKeyFromSeed(edSeed)))],
    mldsaPublic: pub,
  };
}
