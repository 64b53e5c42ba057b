package liveness

import (
	"math"
	"math/bits"
	"sort"
)

// fft transforms x in place (radix-2, decimation in time). len(x) must be a
// power of two.
func fft(x []complex128) {
	n := len(x)
	if n < 2 {
		return
	}
	shift := 64 - bits.TrailingZeros(uint(n))
	for i := 0; i < n; i++ {
		j := int(bits.Reverse64(uint64(i)) >> shift)
		if j > i {
			x[i], x[j] = x[j], x[i]
		}
	}
	for size := 2; size <= n; size <<= 1 {
		half := size / 2
		step := -2 * math.Pi / float64(size)
		for k := 0; k < half; k++ {
			s, c := math.Sincos(step * float64(k))
			w := complex(c, s)
			for start := k; start < n; start += size {
				t := w * x[start+half]
				x[start+half] = x[start] - t
				x[start] += t
			}
		}
	}
}

// powerSpectrum is the 2-D power spectrum of an n x n window (n a power of
// two) of a grey plane, after removing the mean and applying a Hann window
// so that the window's own edges do not leak into high frequencies.
func powerSpectrum(g []float64, n int) []float64 {
	var mean float64
	for _, v := range g {
		mean += v
	}
	mean /= float64(len(g))
	hann := make([]float64, n)
	for i := range hann {
		hann[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n-1))
	}
	x := make([]complex128, n*n)
	for y := 0; y < n; y++ {
		for xx := 0; xx < n; xx++ {
			x[y*n+xx] = complex((g[y*n+xx]-mean)*hann[y]*hann[xx], 0)
		}
	}
	for y := 0; y < n; y++ {
		fft(x[y*n : (y+1)*n])
	}
	col := make([]complex128, n)
	for xx := 0; xx < n; xx++ {
		for y := 0; y < n; y++ {
			col[y] = x[y*n+xx]
		}
		fft(col)
		for y := 0; y < n; y++ {
			x[y*n+xx] = col[y]
		}
	}
	p := make([]float64, n*n)
	for i, c := range x {
		p[i] = real(c)*real(c) + imag(c)*imag(c)
	}
	return p
}

// Spectral summarises a power spectrum for presentation attacks. Natural
// images have a smooth power law falling with frequency; a halftone print
// or a screen's subpixel grid adds energy at high frequencies, concentrated
// in a few sharp peaks (the printing screen, the pixel pitch, moire).
type Spectral struct {
	// HighShare is the share of the energy at radii above half Nyquist
	// (of all energy above 5 % of Nyquist).
	HighShare float64
	// MidShare is the share between a quarter and half Nyquist.
	MidShare float64
	// Peak is the log of the ratio of the strongest coefficients to the
	// median of their ring (radius 0.2 to 1 of Nyquist): how far a single
	// frequency stands out from the others at its radius.
	Peak float64
}

// spectral computes Spectral over the n x n plane g.
func spectral(g []float64, n int) Spectral {
	p := powerSpectrum(g, n)
	half := n / 2
	rings := make([][]float64, half+1)
	ringOf := make([]int, n*n)
	var total, high, mid float64
	for v := 0; v < n; v++ {
		for u := 0; u < n; u++ {
			fu, fv := u, v
			if fu >= half {
				fu -= n
			}
			if fv >= half {
				fv -= n
			}
			r := math.Hypot(float64(fu), float64(fv)) / float64(half)
			ringOf[v*n+u] = -1
			if r > 1 {
				continue
			}
			e := p[v*n+u]
			if r >= 0.2 {
				ring := int(math.Round(r * float64(half)))
				rings[ring] = append(rings[ring], e)
				ringOf[v*n+u] = ring
			}
			if r < 0.05 {
				continue
			}
			total += e
			switch {
			case r > 0.5:
				high += e
			case r > 0.25:
				mid += e
			}
		}
	}
	var s Spectral
	if total <= 0 {
		return s
	}
	s.HighShare = high / total
	s.MidShare = mid / total
	// Each coefficient against the median of its ring: the median ignores
	// the few peaks, so a periodic pattern stands out however strong.
	medians := make([]float64, len(rings))
	for i, r := range rings {
		if len(r) > 0 {
			sort.Float64s(r)
			medians[i] = r[len(r)/2]
		}
	}
	// a floor of a thousandth of the mean coefficient keeps rings of
	// (near) zeros, a smooth synthetic ramp, from giving unbounded ratios
	floor := 1e-3 * total / float64(n*n)
	ratios := make([]float64, 0, n*n)
	for i, ring := range ringOf {
		if ring >= 0 {
			ratios = append(ratios, p[i]/(medians[ring]+floor))
		}
	}
	if len(ratios) == 0 {
		return s
	}
	// The mean of the four largest ratios: a periodic pattern puts its
	// energy in a pair of symmetric coefficients and their neighbours
	// (the window spreads it), while one lucky coefficient of noise does
	// not make a peak.
	sort.Float64s(ratios)
	k := min(4, len(ratios))
	var top float64
	for _, r := range ratios[len(ratios)-k:] {
		top += r
	}
	s.Peak = math.Log(top / float64(k))
	return s
}
