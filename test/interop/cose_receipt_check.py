# An independent COSE receipt check (RFC 9942, RFC9162_SHA256), written from the RFCs with no
# vouch code: Debian's python3-cbor2 decodes, the RFC 9162 2.1.3.2 algorithm below recomputes the
# root, RFC 9052 4.4 gives the Sig_structure, python3-cryptography verifies Ed25519 (EdDSA, -8).
# ML-DSA-65 (-49): prints the Sig_structure for OpenSSL 3.5 (Node 24) to verify.
# Usage: python3 cose_receipt_check.py RECEIPT.cose [ED25519_PUBLIC_KEY_HEX]   -> one JSON line
import hashlib, json, sys
import cbor2
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

def fail(msg):
    print(json.dumps({"ok": False, "error": msg}))
    sys.exit(1)

def root_from_inclusion(index, size, leaf, path):
    # RFC 9162 section 2.1.3.2, steps 1-5.
    if index >= size:
        fail("leaf_index >= tree_size")
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            fail("proof too long")
        if fn % 2 == 1 or fn == sn:
            r = hashlib.sha256(b"\x01" + p + r).digest()
            while fn % 2 == 0 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = hashlib.sha256(b"\x01" + r + p).digest()
        fn >>= 1
        sn >>= 1
    if sn != 0:
        fail("proof too short")
    return r

data = open(sys.argv[1], "rb").read()
msg = cbor2.loads(data)
if not isinstance(msg, cbor2.CBORTag) or msg.tag != 18 or len(msg.value) != 4:
    fail("not a tagged COSE_Sign1")
prot_bytes, unprot, payload, signature = msg.value
if payload is not None:
    fail("payload is not detached")
prot = cbor2.loads(prot_bytes)
alg, kid, vds = prot.get(1), prot.get(4), prot.get(395)
iss = (prot.get(15) or {}).get(1)
if vds != 1:
    fail("vds is not RFC9162_SHA256")
proofs = unprot[396][-1]
size, index, path = cbor2.loads(proofs[0])
entry = unprot["io.vouch/entry"]
leaf = hashlib.sha256(b"\x00" + entry).digest()
root = root_from_inclusion(index, size, leaf, path)
sig_structure = cbor2.dumps(["Signature1", prot_bytes, b"", root])
out = {"ok": True, "alg": alg, "kid": kid.hex(), "iss": iss, "vds": vds, "treeSize": size, "leafIndex": index,
       "signedTreeSize": prot.get("io.vouch/tree-size"), "root": root.hex(), "sigStructure": sig_structure.hex(), "signature": signature.hex(),
       "entry": json.loads(entry)}
if alg == -8:
    if len(sys.argv) < 3:
        fail("an EdDSA receipt needs the Ed25519 public key")
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(sys.argv[2])).verify(signature, sig_structure)
        out["ed25519"] = "verified"
    except Exception:
        fail("Ed25519 signature does not verify")
print(json.dumps(out))
