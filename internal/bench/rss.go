package bench

import (
	"os"
	"strconv"
	"strings"
)

// RSS returns the resident and peak resident set sizes of this process
// in bytes, from /proc (0 where unavailable).
func RSS() (cur, peak int64) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, ln := range strings.Split(string(data), "\n") {
		f := strings.Fields(ln)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			cur = n * 1024
		case "VmHWM:":
			peak = n * 1024
		}
	}
	return cur, peak
}

// RSSMB is the resident set size in MiB (0 where unavailable).
func RSSMB() float64 {
	cur, _ := RSS()
	return float64(cur) / (1 << 20)
}
