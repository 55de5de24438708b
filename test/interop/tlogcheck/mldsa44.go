// The log's ML-DSA-44 lines (c2sp.org/tlog-cosignature type 0x06, what c2sp.org/tlog-checkpoint asks
// logs to sign with), checked as far as Go 1.19's standard library and x/mod go: the vkey's key
// hash, the line's key hash and layout, and the exact signed message (the cosigned_message struct)
// rebuilt here from the spec. Go has no ML-DSA: the messages are printed for OpenSSL to verify.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

// mldsa44Message is one signed message for OpenSSL: the bytes Go built, and the signature.
type mldsa44Message struct {
	Checkpoint int    `json:"checkpoint"`
	Key        string `json:"key"`
	Timestamp  uint64 `json:"timestamp"`
	Message    string `json:"message"`
	Signature  string `json:"signature"`
	PublicKey  string `json:"publicKey"`
}

type mldsa44Key struct {
	name string
	hash uint32
	pub  []byte
}

// mldsa44Keys: the vkeys of type 0x06 (name+hash+base64(0x06 || 1312-byte key)), their hash checked.
func mldsa44Keys(vkeys []string) []mldsa44Key {
	var out []mldsa44Key
	for _, k := range vkeys {
		f := strings.SplitN(k, "+", 3)
		if len(f) < 3 {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(f[2])
		if err != nil || len(raw) == 0 || raw[0] != 0x06 {
			continue
		}
		if len(raw) != 1+1312 {
			fail("ML-DSA-44 vkey %s+%s: key of %d bytes, want 1312", f[0], f[1], len(raw)-1)
			continue
		}
		// key ID = SHA-256(key name || 0x0A || 0x06 || public key)[:4]
		h := sha256.Sum256(append([]byte(f[0]+"\n"), raw...))
		id := binary.BigEndian.Uint32(h[:4])
		if f[1] != hex8(id) {
			fail("ML-DSA-44 vkey %s+%s: key hash by the spec is %s", f[0], f[1], hex8(id))
			continue
		}
		out = append(out, mldsa44Key{f[0], id, raw[1:]})
	}
	return out
}

func hex8(v uint32) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 8)
	for i := 7; i >= 0; i-- {
		b[i] = digits[v&0xf]
		v >>= 4
	}
	return string(b)
}

func opaque8(b []byte) []byte { return append([]byte{byte(len(b))}, b...) }

func u64(v uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, v)
	return b
}

// checkMldsa44 finds each 0x06 key's line in each checkpoint (note.Open lists it as unverified) and
// rebuilds its signed message: "subtree/v1\n\0" || name || timestamp || origin || 0 || size || root.
func checkMldsa44(vkeys []string, checkpoints []string) []mldsa44Message {
	keys := mldsa44Keys(vkeys)
	var out []mldsa44Message
	for i, msg := range checkpoints {
		n, err := note.Open([]byte(msg), verifiers)
		if err != nil {
			continue // openTree reported it
		}
		lines := strings.Split(strings.TrimSuffix(n.Text, "\n"), "\n")
		tree, ok := openTree(msg, "ML-DSA-44 checkpoint")
		if !ok || len(lines) < 3 {
			continue
		}
		found := 0
		for _, k := range keys {
			// The log signs under its origin (tlog-checkpoint: the key name SHOULD match it); the same
			// key under the data directory's key name (also exported) signs no checkpoint line.
			if k.name != lines[0] {
				continue
			}
			found++
			var sig *note.Signature
			for j := range n.UnverifiedSigs {
				if n.UnverifiedSigs[j].Name == k.name && n.UnverifiedSigs[j].Hash == k.hash {
					sig = &n.UnverifiedSigs[j]
				}
			}
			if sig == nil {
				fail("checkpoint %d: no line by ML-DSA-44 key %s+%s", i, k.name, hex8(k.hash))
				continue
			}
			raw, _ := base64.StdEncoding.DecodeString(sig.Base64)
			if len(raw) != 4+8+2420 || binary.BigEndian.Uint32(raw[:4]) != k.hash {
				fail("checkpoint %d: ML-DSA-44 line of %d bytes (want key hash, u64 timestamp, 2420-byte signature)", i, len(raw))
				continue
			}
			ts := binary.BigEndian.Uint64(raw[4:12])
			var m bytes.Buffer
			m.WriteString("subtree/v1\n\x00")
			m.Write(opaque8([]byte(k.name)))
			m.Write(u64(ts))
			m.Write(opaque8([]byte(lines[0])))
			m.Write(u64(0))
			m.Write(u64(uint64(tree.N)))
			m.Write(tree.Hash[:])
			out = append(out, mldsa44Message{i, k.name + "+" + hex8(k.hash), ts, base64.StdEncoding.EncodeToString(m.Bytes()), base64.StdEncoding.EncodeToString(raw[12:]), base64.StdEncoding.EncodeToString(k.pub)})
		}
		if len(keys) > 0 && found == 0 {
			fail("checkpoint %d: no ML-DSA-44 vkey under its origin %q", i, lines[0])
		}
	}
	if len(keys) > 0 {
		pass("ML-DSA-44 (type 0x06): %d vkey(s), key hash SHA-256(name\\n 0x06 key)[:4] as the spec says; %d signed messages rebuilt from the checkpoints Go opened, for OpenSSL", len(keys), len(out))
	}
	return out
}
