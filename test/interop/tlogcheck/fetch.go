// Fetching and reading what a vouch log serves, for tlogcheck: HTTP gets, C2SP tile paths over
// Go's tlog.Tile, a tlog.TileReader over HTTP, entry bundles, and checkpoints opened with note.Open.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

var verifiers note.Verifiers

func get(url string) ([]byte, error) {
	resp, err := http.Get(url) // the default transport asks for gzip and inflates it transparently
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("GET %s: %s: %s", url, resp.Status, body)
	}
	return body, nil
}

// c2spPath: Go's Tile.Path is the sumdb form "tile/H/L/N[.p/W]" (data tiles "tile/H/data/N");
// C2SP tlog-tiles drops the height element (fixed at 8) and names data tiles "entries".
func c2spPath(t tlog.Tile) string {
	p := strings.TrimPrefix(t.Path(), fmt.Sprintf("tile/%d/", t.H))
	if t.L == -1 {
		p = strings.TrimPrefix(p, "data/")
		return "tile/entries/" + p
	}
	return "tile/" + p
}

type httpTiles struct{ prefix string }

func (r httpTiles) Height() int { return tileHeight }

func (r httpTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		path := c2spPath(t)
		data, err := get(r.prefix + "/" + path)
		if err != nil {
			return nil, err
		}
		rep.TilesFetched = append(rep.TilesFetched, path)
		out[i] = data
	}
	return out, nil
}

func (r httpTiles) SaveTiles(tiles []tlog.Tile, data [][]byte) {}

// openTree opens a checkpoint with Go's note.Open and the log's Ed25519 verifier, then reads
// its body. tlog.ParseTree knows only the sumdb header "go.sum database tree" where a C2SP
// checkpoint has its origin line, so the origin line is swapped for that header (the rest of
// the body, "<size>\n<base64 root>\n", is the same format) and the result cross-checked with a
// direct C2SP parse.
func openTree(msg string, what string) (tlog.Tree, bool) {
	n, err := note.Open([]byte(msg), verifiers)
	if err != nil {
		fail("%s: note.Open: %v", what, err)
		return tlog.Tree{}, false
	}
	for _, s := range n.UnverifiedSigs {
		line := fmt.Sprintf("%s+%08x", s.Name, s.Hash)
		if !contains(rep.Unverified, line) {
			rep.Unverified = append(rep.Unverified, line)
		}
	}
	if _, err := tlog.ParseTree([]byte(n.Text)); err == nil {
		fail("%s: tlog.ParseTree accepted a C2SP checkpoint (origin %q): expected it to know only the sumdb header", what, firstLine(n.Text))
	}
	swapped := "go.sum database tree\n" + n.Text[strings.Index(n.Text, "\n")+1:]
	tree, err := tlog.ParseTree([]byte(swapped))
	if err != nil {
		fail("%s: tlog.ParseTree after swapping the origin line: %v", what, err)
		return tlog.Tree{}, false
	}
	lines := strings.Split(n.Text, "\n")
	size, err1 := strconv.ParseInt(lines[1], 10, 64)
	root, err2 := base64.StdEncoding.DecodeString(lines[2])
	if err1 != nil || err2 != nil || size != tree.N || !bytes.Equal(root, tree.Hash[:]) {
		fail("%s: the C2SP parse (%q, %q) differs from tlog.ParseTree's %d %s", what, lines[1], lines[2], tree.N, tree.Hash)
		return tlog.Tree{}, false
	}
	return tree, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

// entries fetches the entry bundles of a tree of size n and splits them (uint16 length prefixes).
func entries(prefix string, n int64) ([][]byte, error) {
	var out [][]byte
	for start := int64(0); start < n; start += 1 << tileHeight {
		w := n - start
		if w > 1<<tileHeight {
			w = 1 << tileHeight
		}
		t := tlog.Tile{H: tileHeight, L: -1, N: start >> tileHeight, W: int(w)}
		path := c2spPath(t)
		data, err := get(prefix + "/" + path)
		if err != nil {
			return nil, err
		}
		rep.TilesFetched = append(rep.TilesFetched, path)
		var got int64
		for len(data) > 0 {
			if len(data) < 2 || len(data) < 2+int(binary.BigEndian.Uint16(data)) {
				return nil, fmt.Errorf("%s: truncated entry", path)
			}
			l := int(binary.BigEndian.Uint16(data))
			out = append(out, data[2:2+l])
			data = data[2+l:]
			got++
		}
		if got != w {
			return nil, fmt.Errorf("%s holds %d entries, want %d", path, got, w)
		}
	}
	return out, nil
}

func decodeProof(hexes []string) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(hexes))
	for i, h := range hexes {
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != tlog.HashSize {
			return nil, fmt.Errorf("proof hash %d is not 32 bytes of hex", i)
		}
		copy(out[i][:], b)
	}
	return out, nil
}

func equalProofs(a, b []tlog.Hash) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
