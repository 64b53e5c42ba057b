package match

import (
	"cmp"
	"math"
	"slices"
	"sync"

	"github.com/tambua/tambua/checks/sanctions/lists"
)

// Index is the screening index over a snapshot of lists. Build it once
// with New; Screen is safe for concurrent use.
type Index struct {
	ents []*lists.Entity

	tokID     map[string]int32
	tokText   []string
	tokPhon   []string
	tokWeight []float32
	tokPost   [][]int32 // aliases holding the token

	delIdx  map[string][]int32 // one-deletion variants -> tokens
	phonIdx map[string][]int32 // phonetic key -> tokens
	// del2 holds the two-deletion variants of tokens of five letters or
	// more, by hash, sorted: with the query's own deletions it finds
	// tokens two typos away (SRPCAE for SPACE) that share neither a
	// one-deletion variant nor a phonetic key. Hashes keep it a flat
	// array of 16-byte entries instead of a map of strings; a collision
	// only adds a candidate that tokenSim then rejects.
	del2 []delEntry
	// short1 maps the one-deletion variants of three-letter tokens to
	// them: ADB for ABD, CUO for CAO are one slip apart but share no
	// key of delIdx, which holds short tokens only as they are.
	short1 map[string][]int32

	aliasEnt    []int32
	aliasToks   [][]int32
	aliasName   []string
	aliasWeight []float32
	// aliasBound is the least total weight score can give the name
	// (middle names discounted, see middleNameWeight), for the pruning
	// bound.
	aliasBound []float32
	aliasComp  []bool // the listed name has a legal-form suffix

	// unknownWeight is the weight of a query token the lists never use:
	// as rare as the rarest listed token.
	unknownWeight float32

	pool sync.Pool
}

// scratch is per-query working memory, reused through a pool.
type scratch struct {
	acc     []float32
	mask    []uint32
	stamp   []uint32
	tstamp  []uint32
	gen     uint32
	tgen    uint32
	touched []int32
	estamp  []uint32
	ebest   []int32
	out     []scored
}

// Weights of token classes relative to a rare name token.
const (
	particleWeight = 0.15
	genericWeight  = 0.25
	minWeight      = 0.05
)

// New builds the index. Entities are kept by reference.
func New(ents []*lists.Entity) *Index {
	x := &Index{ents: ents, tokID: map[string]int32{}, delIdx: map[string][]int32{}, short1: map[string][]int32{}, phonIdx: map[string][]int32{}}
	df := []int32{}
	class := []tokenClass{}
	for ei, e := range ents {
		person := e.Kind == lists.Person || e.Kind == lists.Unknown
		seen := map[int32]bool{}
		for _, name := range e.Names() {
			toks, company := tokenize(name, person)
			if len(toks) == 0 {
				continue
			}
			a := int32(len(x.aliasEnt))
			ids := make([]int32, len(toks))
			for i, t := range toks {
				id, ok := x.tokID[t.text]
				if !ok {
					id = int32(len(x.tokText))
					x.tokID[t.text] = id
					x.tokText = append(x.tokText, t.text)
					x.tokPhon = append(x.tokPhon, t.phon)
					x.tokPost = append(x.tokPost, nil)
					df = append(df, 0)
					class = append(class, t.class)
				}
				ids[i] = id
				// A name holding a token twice (MUHAMMAD, Muhammad) is
				// posted twice: the pruning bound counts occurrences.
				x.tokPost[id] = append(x.tokPost[id], a)
				if !seen[id] {
					seen[id] = true
					df[id]++
				}
			}
			x.aliasEnt = append(x.aliasEnt, int32(ei))
			x.aliasToks = append(x.aliasToks, ids)
			x.aliasName = append(x.aliasName, name)
			x.aliasComp = append(x.aliasComp, company)
		}
	}
	n := float64(len(ents)) + 1
	norm := math.Log(1 + n)
	x.tokWeight = make([]float32, len(x.tokText))
	for id, t := range x.tokText {
		w := math.Log(1+n/float64(df[id])) / norm
		switch {
		case class[id] == classParticle:
			w = math.Min(w, particleWeight)
		case generic[t]:
			w = math.Min(w, genericWeight)
		}
		x.tokWeight[id] = float32(math.Max(w, minWeight))
		for _, d := range deletions(t) {
			x.delIdx[d] = append(x.delIdx[d], int32(id))
		}
		if len(t) == 3 {
			for i := range 3 {
				d := t[:i] + t[i+1:]
				if !slices.Contains(x.short1[d], int32(id)) {
					x.short1[d] = append(x.short1[d], int32(id))
				}
			}
		}
		if len(t) >= del2MinLen {
			for _, h := range deletions2(t) {
				x.del2 = append(x.del2, delEntry{h: h, id: int32(id)})
			}
		}
		if p := x.tokPhon[id]; len(p) >= 2 {
			x.phonIdx[p] = append(x.phonIdx[p], int32(id))
		}
	}
	slices.SortFunc(x.del2, func(a, b delEntry) int {
		if c := cmp.Compare(a.h, b.h); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	x.del2 = slices.CompactFunc(x.del2, func(a, b delEntry) bool { return a == b })
	x.del2 = slices.Clip(x.del2)
	x.unknownWeight = float32(math.Log(1+n) / norm)
	x.aliasWeight = make([]float32, len(x.aliasToks))
	for a, ids := range x.aliasToks {
		var s float32
		for _, id := range ids {
			s += x.tokWeight[id]
		}
		x.aliasWeight[a] = s
	}
	x.aliasBound = slices.Clone(x.aliasWeight)
	for a, ids := range x.aliasToks {
		if ents[x.aliasEnt[a]].Kind != lists.Person {
			continue
		}
		for j := 1; j < min(len(ids), maxTokens)-1; j++ {
			x.aliasBound[a] -= (1 - middleNameWeight) * x.tokWeight[ids[j]]
		}
	}
	x.pool.New = func() any {
		return &scratch{acc: make([]float32, len(x.aliasEnt)), mask: make([]uint32, len(x.aliasEnt)), estamp: make([]uint32, len(x.ents)), ebest: make([]int32, len(x.ents)), stamp: make([]uint32, len(x.aliasEnt)), tstamp: make([]uint32, len(x.tokText))}
	}
	return x
}

// Len returns the number of entities and of names indexed.
func (x *Index) Len() (entities, names int) { return len(x.ents), len(x.aliasEnt) }

// deletions returns the token and its one-character deletions. Tokens of
// three letters or fewer are indexed as they are: their deletions would
// block on nearly everything.
func deletions(t string) []string {
	if len(t) <= 3 {
		return []string{t}
	}
	out := make([]string, 0, len(t)+1)
	out = append(out, t)
	for i := 0; i < len(t); i++ {
		d := t[:i] + t[i+1:]
		if i > 0 && t[i] == t[i-1] {
			continue // same deletion as the previous letter's
		}
		out = append(out, d)
	}
	return out
}

// del2MinLen is the shortest token whose two-deletion variants are
// indexed: a four-letter word less two letters blocks on everything.
const del2MinLen = 5

type delEntry struct {
	h  uint64
	id int32
}

// hashBytes is FNV-1a, written out so that it does not allocate.
func hashBytes(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// deletions2 returns the hashes of the token's two-character deletions.
func deletions2(t string) []uint64 {
	var out []uint64
	var buf [64]byte
	for i := 0; i < len(t); i++ {
		if i > 0 && t[i] == t[i-1] {
			continue
		}
		for k := i + 1; k < len(t); k++ {
			if k > i+1 && t[k] == t[k-1] {
				continue
			}
			d := append(append(append(buf[:0], t[:i]...), t[i+1:k]...), t[k+1:]...)
			out = append(out, hashBytes(d))
		}
	}
	return out
}

// del2Lookup returns the tokens one of whose two-deletion variants has
// hash h.
func (x *Index) del2Lookup(h uint64) []delEntry {
	i, _ := slices.BinarySearchFunc(x.del2, h, func(e delEntry, h uint64) int { return cmp.Compare(e.h, h) })
	j := i
	for j < len(x.del2) && x.del2[j].h == h {
		j++
	}
	return x.del2[i:j]
}

// weight returns the weight of a query token: its listed weight when the
// lists use it, else that of the rarest token.
func (x *Index) weight(t token) float32 {
	if id, ok := x.tokID[t.text]; ok {
		return x.tokWeight[id]
	}
	switch {
	case t.class == classParticle || len(t.text) <= 2:
		// Unknown one- and two-letter words are initials or pieces of
		// a legal form (S RL), not names.
		return particleWeight
	case generic[t.text]:
		return genericWeight
	}
	return x.unknownWeight
}
