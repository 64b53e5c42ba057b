package htmlcards

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/tambua/tambua/idv"
)

// The dev2 style's security print: a tint with a fine dotted mesh, and
// over it line art of kinds the other styles do not draw the same way: a
// rosette of rotated ellipses, a spiral, a guilloche ribbon of
// phase-shifted envelopes along one edge, diagonal hatching on some
// cards, a faint large wreath-and-star watermark and a microtext rule.

// dev2Background is the card's tint: the definition's colours in a
// vertical or diagonal gradient, with a dotted mesh over it on most
// cards.
func dev2Background(r *rand.Rand, a, b string) string {
	ang := oneOf(r, []float64{180, 160, 200, 135})
	base := fmt.Sprintf("linear-gradient(%.0fdeg, %s 0%%, #fafaf6 %.0f%%, %s 100%%)", ang, a, between(r, 35, 60), b)
	if r.Float64() < 0.7 {
		step := between(r, 5, 9)
		dot := fmt.Sprintf("radial-gradient(circle, %s 0.8px, transparent 1.3px) 0 0/%.1fpx %.1fpx", withAlpha(darkHex(b), 0.22), step, step)
		return dot + ", " + base
	}
	return base
}

// darkHex darkens a colour for line art drawn from the tint.
func darkHex(hex string) string { return darker(hex, 0.45) }

// dev2Overlay is the line art over the tint.
func dev2Overlay(r *rand.Rand, d *idv.DocumentDefinition, side string, wmm, hmm float64) string {
	W, H := wmm*pxPerMM, hmm*pxPerMM
	cs := d.Colours[side]
	line := "#7f8f99"
	if len(cs) > 1 {
		line = darker(cs[1], 0.4)
	}
	line2 := oneOf(r, []string{"#b07a8c", "#7a93b0", "#8fae8a", "#b09a6a"})
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f">`, W, H, W, H)

	// diagonal hatching on some cards
	if r.Float64() < 0.35 {
		step := between(r, 7, 12)
		ang := oneOf(r, []float64{30, 45, 60, 120, 135})
		fmt.Fprintf(&b, `<defs><pattern id="h" width="%.1f" height="%.1f" patternUnits="userSpaceOnUse" patternTransform="rotate(%.0f)"><line x1="0" y1="0" x2="0" y2="%.1f" stroke="%s" stroke-width="0.7"/></pattern></defs>`,
			step, step, ang, step, line)
		fmt.Fprintf(&b, `<rect width="%.0f" height="%.0f" fill="url(#h)" opacity="%.2f"/>`, W, H, between(r, 0.12, 0.22))
	}

	// a rosette: ellipses turned round one centre
	cx, cy := between(r, 0.2, 0.8)*W, between(r, 0.3, 0.7)*H
	rx := between(r, 0.16, 0.28) * H
	ry := rx * between(r, 0.12, 0.35)
	n := 18 + r.IntN(18)
	fmt.Fprintf(&b, `<g fill="none" stroke="%s" stroke-width="0.8" opacity="%.2f" transform="translate(%.1f %.1f)">`, line2, between(r, 0.3, 0.45), cx, cy)
	for k := range n {
		fmt.Fprintf(&b, `<ellipse rx="%.1f" ry="%.1f" transform="rotate(%.2f)"/>`, rx, ry, 180*float64(k)/float64(n))
	}
	b.WriteString(`</g>`)

	// a spiral of a few turns elsewhere, on most cards
	if r.Float64() < 0.7 {
		sx, sy := math.Mod(cx+W*between(r, 0.35, 0.65), W), between(r, 0.25, 0.75)*H
		turns := between(r, 5, 9)
		rmax := between(r, 0.15, 0.3) * H
		var p strings.Builder
		steps := int(turns * 48)
		for i := 0; i <= steps; i++ {
			t := float64(i) / float64(steps)
			th := t * turns * 2 * math.Pi
			rad := rmax * t * (1 + 0.06*math.Sin(7*th))
			c := "L"
			if i == 0 {
				c = "M"
			}
			fmt.Fprintf(&p, "%s%.1f %.1f ", c, sx+rad*math.Cos(th), sy+rad*math.Sin(th))
		}
		fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="0.8" opacity="%.2f"/>`, p.String(), line, between(r, 0.25, 0.4))
	}

	// a guilloche ribbon along the top or bottom edge: sine lines under a
	// slow envelope, each a little out of phase, crossing one another
	ry0 := oneOf(r, []float64{0.1, 0.9}) * H
	amp := between(r, 0.05, 0.09) * H
	lam := between(r, 0.1, 0.2) * W
	fmt.Fprintf(&b, `<g fill="none" stroke="%s" stroke-width="0.7" opacity="%.2f">`, line, between(r, 0.3, 0.45))
	for k := range 8 {
		ph := float64(k) * math.Pi / 8
		var p strings.Builder
		for x := 0.0; x <= W+6; x += 6 {
			env := 0.55 + 0.45*math.Sin(2*math.Pi*x/(lam*3.3))
			y := ry0 + amp*env*math.Sin(2*math.Pi*x/lam+ph)
			if x == 0 {
				fmt.Fprintf(&p, "M%.1f %.1f", x, y)
			} else {
				fmt.Fprintf(&p, " L%.1f %.1f", x, y)
			}
		}
		fmt.Fprintf(&b, `<path d="%s"/>`, p.String())
	}
	b.WriteString(`</g>`)

	// a faint large watermark: a star in a wreath of leaves
	wx, wy := between(r, 0.35, 0.65)*W, between(r, 0.4, 0.6)*H
	wr := between(r, 0.28, 0.38) * H
	fmt.Fprintf(&b, `<g opacity="%.2f" fill="%s" transform="translate(%.1f %.1f)">`, between(r, 0.07, 0.11), line, wx, wy)
	fmt.Fprintf(&b, `<path d="%s"/>`, star(0, 0, wr*0.45, wr*0.18, 5))
	for side := -1.0; side <= 1; side += 2 {
		for k := range 9 {
			th := math.Pi/2 + side*(0.35+float64(k)*0.28)
			lx, ly := wr*0.8*math.Cos(th), wr*0.8*math.Sin(th)
			rot := th*180/math.Pi + 90*side
			fmt.Fprintf(&b, `<ellipse cx="%.1f" cy="%.1f" rx="%.1f" ry="%.1f" transform="rotate(%.1f %.1f %.1f)"/>`,
				lx, ly, wr*0.16, wr*0.06, rot, lx, ly)
		}
	}
	b.WriteString(`</g>`)

	// a microtext rule near one edge on half the cards
	if r.Float64() < 0.5 {
		word := map[string]string{"KEN": "REPUBLICOFKENYA", "UGA": "REPUBLICOFUGANDA", "NGA": "NIGERIA", "GHA": "GHANA",
			"ZAF": "SOUTHAFRICA", "TZA": "TANZANIA"}[d.Country]
		if word == "" {
			word = "UTOPIA"
		}
		y := oneOf(r, []float64{0.985, 0.012}) * H
		if y < H/2 {
			y += 5
		}
		fmt.Fprintf(&b, `<text x="4" y="%.1f" font-family="Lato" font-size="5" fill="%s" opacity=".55">%s</text>`,
			y, line, strings.Repeat(word+" ", int(W/(float64(len(word))*3.2))+1))
	}
	b.WriteString(`</svg>`)
	return b.String()
}
