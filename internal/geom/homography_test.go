package geom

import (
	"math"
	"testing"
)

func TestHomography(t *testing.T) {
	tests := []struct {
		name     string
		src, dst [4][2]float64
		ok       bool
	}{
		{"identity", [4][2]float64{{0, 0}, {1, 0}, {1, 1}, {0, 1}}, [4][2]float64{{0, 0}, {1, 0}, {1, 1}, {0, 1}}, true},
		{"card to tilted quad", [4][2]float64{{0, 0}, {856, 0}, {856, 540}, {0, 540}},
			[4][2]float64{{212, 148}, {1043, 201}, {990, 760}, {170, 690}}, true},
		{"upside down", [4][2]float64{{0, 0}, {10, 0}, {10, 5}, {0, 5}}, [4][2]float64{{10, 5}, {0, 5}, {0, 0}, {10, 0}}, true},
		{"three corners in a line", [4][2]float64{{0, 0}, {1, 0}, {2, 0}, {0, 1}}, [4][2]float64{{0, 0}, {1, 0}, {1, 1}, {0, 1}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, ok := HomographyFrom(tc.src, tc.dst)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			inv := h.Inverse()
			for i := range tc.src {
				x, y := h.Apply(tc.src[i][0], tc.src[i][1])
				if math.Hypot(x-tc.dst[i][0], y-tc.dst[i][1]) > 1e-6 {
					t.Errorf("corner %d maps to (%g, %g), want %v", i, x, y, tc.dst[i])
				}
				bx, by := inv.Apply(x, y)
				if math.Hypot(bx-tc.src[i][0], by-tc.src[i][1]) > 1e-6 {
					t.Errorf("corner %d comes back to (%g, %g), want %v", i, bx, by, tc.src[i])
				}
			}
		})
	}
}
