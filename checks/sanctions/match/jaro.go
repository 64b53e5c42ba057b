package match

// jaroWinkler returns the Jaro-Winkler similarity of two strings of
// bytes (the normaliser leaves names in upper-case ASCII; other scripts
// compare byte-wise, which is still a valid similarity).
func jaroWinkler(a, b string) float64 {
	if a == b {
		return 1
	}
	la, lb := len(a), len(b)
	if la == 0 || lb == 0 {
		return 0
	}
	if la > lb {
		a, b, la, lb = b, a, lb, la
	}
	window := lb/2 - 1
	if window < 0 {
		window = 0
	}
	// Names are short; fixed buffers keep this allocation-free.
	var amBuf, bmBuf [64]bool
	var am, bm []bool
	if lb <= 64 {
		am, bm = amBuf[:la], bmBuf[:lb]
	} else {
		am, bm = make([]bool, la), make([]bool, lb)
	}
	matches := 0
	for i := 0; i < la; i++ {
		lo, hi := i-window, i+window+1
		if lo < 0 {
			lo = 0
		}
		if hi > lb {
			hi = lb
		}
		for j := lo; j < hi; j++ {
			if !bm[j] && a[i] == b[j] {
				am[i], bm[j] = true, true
				matches++
				break
			}
		}
	}
	if matches == 0 {
		return 0
	}
	t, k := 0, 0
	for i := 0; i < la; i++ {
		if !am[i] {
			continue
		}
		for !bm[k] {
			k++
		}
		if a[i] != b[k] {
			t++
		}
		k++
	}
	m := float64(matches)
	jaro := (m/float64(la) + m/float64(lb) + (m-float64(t)/2)/m) / 3
	prefix := 0
	for prefix < 4 && prefix < la && a[prefix] == b[prefix] {
		prefix++
	}
	return jaro + float64(prefix)*0.1*(1-jaro)
}
