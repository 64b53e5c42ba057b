package synth

import (
	"math"
	"math/rand/v2"
)

// rng is the single source of randomness of one sample. Every draw goes
// through it so that a seed fixes the output byte for byte.
type rng struct{ r *rand.Rand }

func newRNG(seed uint64, stream uint64) *rng {
	return &rng{r: rand.New(rand.NewPCG(seed, stream))}
}

// splitmix mixes a seed and an index into an independent sub-seed, so that
// sample i does not depend on how many samples came before it.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// fork returns an independent generator for a named sub-task, so that adding
// draws to one part of the pipeline does not shift the draws of another.
func (g *rng) fork(name string) *rng {
	h := uint64(1469598103934665603)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return newRNG(splitmix(g.r.Uint64()^h), h)
}

func (g *rng) float() float64                { return g.r.Float64() }
func (g *rng) rangef(lo, hi float64) float64 { return lo + (hi-lo)*g.r.Float64() }
func (g *rng) intn(n int) int {
	if n <= 0 {
		return 0
	}
	return g.r.IntN(n)
}

// between returns an int in [lo, hi].
func (g *rng) between(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + g.r.IntN(hi-lo+1)
}
func (g *rng) chance(p float64) bool { return g.r.Float64() < p }
func (g *rng) norm() float64         { return g.r.NormFloat64() }
func (g *rng) sign() float64 {
	if g.r.IntN(2) == 0 {
		return -1
	}
	return 1
}

func pick[T any](g *rng, xs []T) T { return xs[g.intn(len(xs))] }

// fastNoise is a cheap xorshift generator for per-pixel noise, where
// math/rand's per-call cost would dominate a 2 megapixel image.
type fastNoise struct{ s uint64 }

func (f *fastNoise) next() uint64 {
	f.s ^= f.s << 13
	f.s ^= f.s >> 7
	f.s ^= f.s << 17
	return f.s
}

// gauss returns an approximately normal value (sum of four uniforms,
// variance scaled to one).
func (f *fastNoise) gauss() float32 {
	v := f.next()
	a := float32(v&0xffff) + float32((v>>16)&0xffff) + float32((v>>32)&0xffff) + float32(v>>48)
	// four uniforms on [0,65535]: mean 131070, sd 65535*sqrt(4/12)
	return (a - 131070) / 37837.2
}

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

func clamp8(v float32) uint8 {
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return uint8(v + 0.5)
}
