// tlogcheck: checks a vouch log with Go's reference code (golang.org/x/mod/sumdb/note and tlog).
// Reads a JSON job on stdin (the log's tiles prefix, its vkeys, checkpoints and vouch's own proofs),
// fetches tiles over HTTP, prints a JSON report on stdout; exit status 1 if any check failed.
// Built (with fetch.go) by test/interop/go-tlog.test.ts with GO111MODULE=off GOPATH=/usr/share/gocode (Debian's
// golang-golang-x-mod-dev), so no network and no go.mod.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

const tileHeight = 8

type proofJob struct {
	Seq        int64    `json:"seq"`
	From       int64    `json:"from"`
	To         int64    `json:"to"`
	Size       int64    `json:"size"`
	Proof      []string `json:"proof"`
	Checkpoint string   `json:"checkpoint"`
	// The older checkpoint of a consistency proof (signed at From).
	FromCheckpoint string `json:"fromCheckpoint"`
}

type job struct {
	Prefix      string     `json:"prefix"`
	Vkeys       []string   `json:"vkeys"`
	Checkpoints []string   `json:"checkpoints"`
	Inclusion   []proofJob `json:"inclusion"`
	Consistency []proofJob `json:"consistency"`
}

type report struct {
	Ok            bool     `json:"ok"`
	Verifiers     []string `json:"verifiers"`
	Unsupported   []string `json:"unsupportedKeys"`
	Checks        []string `json:"checks"`
	Substitutions []string `json:"substitutions"`
	Unverified    []string `json:"unverifiedSignatures"`
	Failures      []string `json:"failures"`
	TreeSize      int64    `json:"treeSize"`
	TilesFetched  []string `json:"tilesFetched"`
	Mldsa44       []mldsa44Message `json:"mldsa44"`
}

var rep = report{Ok: true}

func fail(format string, args ...interface{}) {
	rep.Ok = false
	rep.Failures = append(rep.Failures, fmt.Sprintf(format, args...))
}

func pass(format string, args ...interface{}) {
	rep.Checks = append(rep.Checks, fmt.Sprintf(format, args...))
}

func main() {
	var j job
	if err := json.NewDecoder(os.Stdin).Decode(&j); err != nil {
		fmt.Fprintln(os.Stderr, "tlogcheck: bad job:", err)
		os.Exit(2)
	}
	run(j)
	out, _ := json.MarshalIndent(rep, "", "  ")
	fmt.Println(string(out))
	if !rep.Ok {
		os.Exit(1)
	}
}

func run(j job) {
	var list []note.Verifier
	for _, k := range j.Vkeys {
		v, err := note.NewVerifier(k)
		if err != nil {
			// Go's note package knows Ed25519 (algorithm 1) only: the ML-DSA-65 key is listed, not used.
			f := strings.SplitN(k, "+", 3) // name+hash+key: names never hold '+', base64 keys may
			if len(f) < 3 {
				fail("vkey %q is not name+hash+key", k)
				continue
			}
			rep.Unsupported = append(rep.Unsupported, fmt.Sprintf("%s+%s (%v)", f[0], f[1], err))
			continue
		}
		list = append(list, v)
		rep.Verifiers = append(rep.Verifiers, fmt.Sprintf("%s+%08x", v.Name(), v.KeyHash()))
	}
	if len(list) == 0 {
		fail("no vkey is one Go's note package can verify (Ed25519)")
		return
	}
	verifiers = note.VerifierList(list...)

	latestNote, err := get(j.Prefix + "/checkpoint")
	if err != nil {
		fail("fetch checkpoint: %v", err)
		return
	}
	latest, ok := openTree(string(latestNote), "/checkpoint")
	if !ok {
		return
	}
	rep.TreeSize = latest.N
	pass("note.Open verified /checkpoint (size %d) with the Ed25519 key", latest.N)

	hr := tlog.TileHashReader(latest, httpTiles{j.Prefix})
	th, err := tlog.TreeHash(latest.N, hr)
	if err != nil || th != latest.Hash {
		fail("tlog.TreeHash from tiles for size %d: %v (got %s, checkpoint %s)", latest.N, err, th, latest.Hash)
		return
	}
	pass("tlog.TileHashReader + tlog.TreeHash recomputed the root of size %d from the tiles", latest.N)

	all, err := entries(j.Prefix, latest.N)
	if err != nil {
		fail("entry bundles: %v", err)
		return
	}
	idx := make([]int64, len(all))
	for i := range all {
		idx[i] = tlog.StoredHashIndex(0, int64(i))
	}
	leaves, err := hr.ReadHashes(idx)
	if err != nil {
		fail("level-0 hashes from tiles: %v", err)
		return
	}
	for i, e := range all {
		if tlog.RecordHash(e) != leaves[i] {
			fail("entry %d: tlog.RecordHash of its bundle bytes is not the level-0 tile hash", i)
			return
		}
	}
	pass("all %d entries in the bundles hash (tlog.RecordHash) to their level-0 tile hashes", len(all))

	for i, msg := range j.Checkpoints {
		tree, ok := openTree(msg, fmt.Sprintf("checkpoint %d", i))
		if !ok {
			continue
		}
		if tree.N > latest.N {
			fail("checkpoint %d (size %d) is newer than /checkpoint (%d)", i, tree.N, latest.N)
			continue
		}
		h, err := tlog.TreeHash(tree.N, hr)
		if err != nil || h != tree.Hash {
			fail("checkpoint %d: root of size %d from tiles %s, signed %s (%v)", i, tree.N, h, tree.Hash, err)
		}
	}
	pass("%d older checkpoints opened and their roots recomputed from the tiles", len(j.Checkpoints))
	rep.Mldsa44 = checkMldsa44(j.Vkeys, j.Checkpoints)

	for _, p := range j.Inclusion {
		tree, ok := openTree(p.Checkpoint, fmt.Sprintf("inclusion %d@%d checkpoint", p.Seq, p.Size))
		if !ok {
			continue
		}
		proof, err := decodeProof(p.Proof)
		if err != nil || p.Seq >= int64(len(all)) || tree.N != p.Size {
			fail("inclusion %d@%d: bad job (%v)", p.Seq, p.Size, err)
			continue
		}
		if err := tlog.CheckRecord(tlog.RecordProof(proof), tree.N, tree.Hash, p.Seq, tlog.RecordHash(all[p.Seq])); err != nil {
			fail("inclusion %d@%d: tlog.CheckRecord rejected vouch's proof: %v", p.Seq, p.Size, err)
		}
		mine, err := tlog.ProveRecord(tree.N, p.Seq, hr)
		if err != nil || !equalProofs(mine, proof) {
			fail("inclusion %d@%d: tlog.ProveRecord differs from vouch's proof (%v)", p.Seq, p.Size, err)
		}
	}
	pass("%d inclusion proofs: tlog.CheckRecord accepts each, tlog.ProveRecord gives the same bytes", len(j.Inclusion))

	for _, p := range j.Consistency {
		newer, ok1 := openTree(p.Checkpoint, fmt.Sprintf("consistency %d->%d new checkpoint", p.From, p.To))
		older, ok2 := openTree(p.FromCheckpoint, fmt.Sprintf("consistency %d->%d old checkpoint", p.From, p.To))
		if !ok1 || !ok2 {
			continue
		}
		proof, err := decodeProof(p.Proof)
		if err != nil || newer.N != p.To || older.N != p.From {
			fail("consistency %d->%d: bad job (%v)", p.From, p.To, err)
			continue
		}
		if err := tlog.CheckTree(tlog.TreeProof(proof), newer.N, newer.Hash, older.N, older.Hash); err != nil {
			fail("consistency %d->%d: tlog.CheckTree rejected vouch's proof: %v", p.From, p.To, err)
		}
		mine, err := tlog.ProveTree(newer.N, older.N, hr)
		if err != nil || !equalProofs(mine, proof) {
			fail("consistency %d->%d: tlog.ProveTree differs from vouch's proof (%v)", p.From, p.To, err)
		}
	}
	pass("%d consistency proofs: tlog.CheckTree accepts each, tlog.ProveTree gives the same bytes", len(j.Consistency))

	rep.Substitutions = []string{
		"checkpoint body: tlog.ParseTree accepts only the sumdb header line \"go.sum database tree\"; a C2SP checkpoint starts with its origin, so the origin line is replaced by that header before tlog.ParseTree (size and root lines are the same format), and the result is cross-checked with a direct C2SP parse",
		"tile paths: Go's Tile.Path is the sumdb form tile/8/<L>/<N>[.p/<W>] (data tiles tile/8/data/<N>); C2SP tlog-tiles drops the height element and names data tiles entries, so the client fetches Tile.Path with \"8/\" removed and \"data\" as \"entries\" (the <N> and .p/<W> encoding is Go's own)",
		"entry bundles: Go's sumdb data tiles are newline-framed records (tlog.ParseRecord); C2SP entry bundles are uint16 length-prefixed, so they are split here and each entry hashed with tlog.RecordHash",
		"ML-DSA signatures: Go's note package knows Ed25519 only, so note.NewVerifier refuses the ML-DSA-65 and ML-DSA-44 vkeys and note.Open lists their signature lines in UnverifiedSigs; for ML-DSA-44 (0x06) Go checks the key hashes and rebuilds each signed message, and OpenSSL 3.5 (Node 24) verifies the signatures over those bytes",
	}
}
