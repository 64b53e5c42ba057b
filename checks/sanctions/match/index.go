package match

import (
	"math"
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

	aliasEnt    []int32
	aliasToks   [][]int32
	aliasName   []string
	aliasWeight []float32
	aliasComp   []bool // the listed name has a legal-form suffix

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
	x := &Index{ents: ents, tokID: map[string]int32{}, delIdx: map[string][]int32{}, phonIdx: map[string][]int32{}}
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
		if p := x.tokPhon[id]; len(p) >= 2 {
			x.phonIdx[p] = append(x.phonIdx[p], int32(id))
		}
	}
	x.unknownWeight = float32(math.Log(1+n) / norm)
	x.aliasWeight = make([]float32, len(x.aliasToks))
	for a, ids := range x.aliasToks {
		var s float32
		for _, id := range ids {
			s += x.tokWeight[id]
		}
		x.aliasWeight[a] = s
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
