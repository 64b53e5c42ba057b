package ocr

import (
	"image"
	"math/rand/v2"
	"testing"
)

// TestFlattenEvensPaper: print on paper that darkens from left to right
// (a shadow) comes out as the same ink on the same paper on both sides.
func TestFlattenEvensPaper(t *testing.T) {
	const w, h = 400, 240
	g := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			paper := 230 - 130*x/w // 230 at the left edge, 100 at the right
			v := paper
			// A 4 px stroke every 40 px in the middle band: print.
			if y > 100 && y < 140 && x%40 < 4 {
				v = paper / 3
			}
			g.Pix[y*g.Stride+x] = uint8(v)
		}
	}
	f := flatten(g)
	at := func(x, y int) int { return int(f.Pix[y*f.Stride+x]) }
	for _, x := range []int{41, 361} {
		if p := at(x+20, 60); p < 235 {
			t.Errorf("paper at x=%d flattened to %d, want near 255", x+20, p)
		}
		if ink := at(x, 120); ink > 110 {
			t.Errorf("ink at x=%d flattened to %d, want dark", x, ink)
		}
	}
	if d := at(41, 120) - at(361, 120); d < -20 || d > 20 {
		t.Errorf("ink on light and dark paper differs by %d after flattening", d)
	}
}

func TestSlidingMax(t *testing.T) {
	src := []uint8{1, 5, 2, 0, 0, 0, 9, 3}
	dst := make([]uint8, len(src))
	slidingMax(src, dst, 1)
	want := []uint8{5, 5, 5, 2, 0, 9, 9, 9}
	for i := range want {
		if dst[i] != want[i] {
			t.Fatalf("slidingMax = %v, want %v", dst, want)
		}
	}
}

// slidingMax against the window's maximum taken one pixel at a time.
func TestSlidingMaxBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n, r := 1+rng.IntN(60), rng.IntN(40)
		src := make([]uint8, n)
		for i := range src {
			src[i] = uint8(rng.IntN(256))
		}
		dst := make([]uint8, n)
		slidingMax(src, dst, r)
		for i := range src {
			want := uint8(0)
			for j := max(0, i-r); j <= min(n-1, i+r); j++ {
				want = max(want, src[j])
			}
			if dst[i] != want {
				t.Fatalf("n %d r %d i %d: got %d want %d", n, r, i, dst[i], want)
			}
		}
	}
}

// maxFilter against the square window's maximum taken one pixel at a
// time, edges included.
func TestMaxFilterBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 40; trial++ {
		w, h, r := 1+rng.IntN(40), 1+rng.IntN(40), rng.IntN(24)
		g := image.NewGray(image.Rect(0, 0, w, h))
		for i := range g.Pix {
			g.Pix[i] = uint8(rng.IntN(256))
		}
		got := maxFilter(g, r)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				want := uint8(0)
				for yy := max(0, y-r); yy <= min(h-1, y+r); yy++ {
					for xx := max(0, x-r); xx <= min(w-1, x+r); xx++ {
						want = max(want, g.GrayAt(xx, yy).Y)
					}
				}
				if v := got.GrayAt(x, y).Y; v != want {
					t.Fatalf("%dx%d r %d at (%d,%d): got %d want %d", w, h, r, x, y, v, want)
				}
			}
		}
	}
}

func BenchmarkMaxFilter(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	g := image.NewGray(image.Rect(0, 0, 1012, 638))
	for i := range g.Pix {
		g.Pix[i] = uint8(rng.IntN(256))
	}
	for b.Loop() {
		maxFilter(g, 7)
	}
}

// maxBytes against the larger of each byte pair, over every pair of
// values in each byte place.
func TestMaxBytes(t *testing.T) {
	for a := 0; a < 256; a++ {
		for b := 0; b < 256; b++ {
			for place := 0; place < 8; place += 7 {
				// the other bytes hold other values, so a borrow or a
				// carry across places would show
				x := uint64(0x5a00ff017f80c3a5)&^(0xff<<(8*place)) | uint64(a)<<(8*place)
				y := uint64(0xa5ff00807f01c35a)&^(0xff<<(8*place)) | uint64(b)<<(8*place)
				got := maxBytes(x, y)
				for k := 0; k < 8; k++ {
					xa, yb := uint8(x>>(8*k)), uint8(y>>(8*k))
					if g := uint8(got >> (8 * k)); g != max(xa, yb) {
						t.Fatalf("max(%#x, %#x) byte %d = %#x, want %#x", x, y, k, g, max(xa, yb))
					}
				}
			}
		}
	}
}
