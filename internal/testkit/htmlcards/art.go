package htmlcards

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/boombuler/barcode/pdf417"
	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"

	"github.com/tambua/tambua/idv"
)

// The security print is drawn by the browser: CSS gradients for the
// tint and SVG line art over it, both written here per card.

// background is the card's CSS background: the definition's colours
// (`colours`) as the style's gradient, with a fine pattern.
func background(r *rand.Rand, s Style, d *idv.DocumentDefinition, side string) string {
	cs := d.Colours[side]
	if len(cs) < 2 {
		cs = []string{"#eef0f2", "#d9dfe6"}
	}
	a, b := cs[0], cs[1]
	switch s {
	case Dev2:
		return dev2Background(r, a, b)
	case Dev:
		ang := between(r, 95, 140)
		return fmt.Sprintf("linear-gradient(%.0fdeg, %s 0%%, #fbfbf7 45%%, %s 100%%)", ang, a, b)
	default:
		// a radial tint, fine diagonal hatching and a paper-white core
		hatch := fmt.Sprintf("repeating-linear-gradient(%.0fdeg, rgba(0,0,0,0) 0px, rgba(0,0,0,0) 5px, %s 5px, %s 6px)",
			between(r, 30, 60), withAlpha(b, 0.25), withAlpha(b, 0.25))
		return fmt.Sprintf("%s, radial-gradient(ellipse at %.0f%% %.0f%%, #fffdf8 0%%, %s 55%%, %s 100%%)",
			hatch, between(r, 25, 75), between(r, 30, 70), a, b)
	}
}

// withAlpha turns #rrggbb into rgba with alpha a.
func withAlpha(hex string, a float64) string {
	var rr, gg, bb int
	fmt.Sscanf(strings.TrimPrefix(hex, "#"), "%02x%02x%02x", &rr, &gg, &bb)
	return fmt.Sprintf("rgba(%d,%d,%d,%.2f)", rr, gg, bb, a)
}

// darker mixes hex towards black by f (0 to 1).
func darker(hex string, f float64) string {
	var rr, gg, bb int
	fmt.Sscanf(strings.TrimPrefix(hex, "#"), "%02x%02x%02x", &rr, &gg, &bb)
	m := func(c int) int { return int(float64(c) * (1 - f)) }
	return fmt.Sprintf("#%02x%02x%02x", m(rr), m(gg), m(bb))
}

// overlay is the SVG line art over the tint: for dev, bands of waves
// across the card and a faint shield (dev2's is in art_dev2.go); for eval, hypotrochoid rosettes,
// concentric wavy rings and a ring of text round an emblem.
func overlay(r *rand.Rand, s Style, d *idv.DocumentDefinition, side string, wmm, hmm float64) string {
	if s == Dev2 {
		return dev2Overlay(r, d, side, wmm, hmm)
	}
	W, H := wmm*pxPerMM, hmm*pxPerMM
	cs := d.Colours[side]
	line := "#8aa39b"
	if len(cs) > 1 {
		line = darker(cs[1], 0.35)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f">`, W, H, W, H)
	switch s {
	case Dev:
		// wave bands: families of sine lines whose phase drifts line by line
		for band := 0; band < 2; band++ {
			y0 := between(r, 0.15, 0.85) * H
			amp := between(r, 12, 40)
			lambda := between(r, 140, 320)
			n := 10 + r.IntN(10)
			step := between(r, 3, 6)
			drift := between(r, 0.15, 0.4)
			fmt.Fprintf(&b, `<g fill="none" stroke="%s" stroke-width="0.9" opacity="%.2f">`, line, between(r, 0.28, 0.42))
			for k := range n {
				var p strings.Builder
				for x := 0.0; x <= W+8; x += 8 {
					y := y0 + float64(k)*step + amp*math.Sin(2*math.Pi*x/lambda+float64(k)*drift)
					if x == 0 {
						fmt.Fprintf(&p, "M%.1f %.1f", x, y)
					} else {
						fmt.Fprintf(&p, " L%.1f %.1f", x, y)
					}
				}
				fmt.Fprintf(&b, `<path d="%s"/>`, p.String())
			}
			b.WriteString(`</g>`)
		}
		// a faint shield with crossed spears, off centre
		cx, cy := between(r, 0.45, 0.75)*W, between(r, 0.35, 0.65)*H
		sc := H * 0.0042
		fmt.Fprintf(&b, `<g transform="translate(%.0f %.0f) scale(%.2f)" opacity="0.10" fill="%s" stroke="%s" stroke-width="3">`, cx, cy, sc, line, line)
		b.WriteString(`<line x1="-60" y1="-70" x2="60" y2="70"/><line x1="60" y1="-70" x2="-60" y2="70"/>`)
		b.WriteString(`<path d="M0 -55 C30 -55 40 -40 40 -10 C40 25 20 45 0 58 C-20 45 -40 25 -40 -10 C-40 -40 -30 -55 0 -55Z"/>`)
		b.WriteString(`</g>`)
	default:
		// rosettes: hypotrochoids x=(R-r)cos t + d cos((R-r)/r t)
		for k := 0; k < 2; k++ {
			cx, cy := between(r, 0.1, 0.9)*W, between(r, 0.2, 0.8)*H
			R := between(r, 0.18, 0.3) * H
			rr := R / float64(3+r.IntN(5)) * between(r, 0.9, 1.1)
			dd := rr * between(r, 0.6, 1.4)
			var p strings.Builder
			for i := 0; i <= 1800; i++ {
				t := float64(i) / 1800 * 2 * math.Pi * 12
				x := cx + (R-rr)*math.Cos(t) + dd*math.Cos((R-rr)/rr*t)
				y := cy + (R-rr)*math.Sin(t) - dd*math.Sin((R-rr)/rr*t)
				if i == 0 {
					fmt.Fprintf(&p, "M%.1f %.1f", x, y)
				} else {
					fmt.Fprintf(&p, " L%.1f %.1f", x, y)
				}
			}
			fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="0.7" opacity="%.2f"/>`, p.String(), line, between(r, 0.25, 0.4))
		}
		// wavy rings round a point near a corner
		cx, cy := between(r, 0, 1)*W, between(r, 0.7, 1.1)*H
		fmt.Fprintf(&b, `<g fill="none" stroke="%s" stroke-width="0.8" opacity="0.25">`, line)
		for k := 0; k < 14; k++ {
			rad := 60 + float64(k)*14
			var p strings.Builder
			for i := 0; i <= 360; i += 3 {
				t := float64(i) * math.Pi / 180
				rr := rad + 5*math.Sin(9*t+float64(k)*0.5)
				x, y := cx+rr*math.Cos(t), cy+rr*math.Sin(t)
				if i == 0 {
					fmt.Fprintf(&p, "M%.1f %.1f", x, y)
				} else {
					fmt.Fprintf(&p, " L%.1f %.1f", x, y)
				}
			}
			fmt.Fprintf(&b, `<path d="%sZ"/>`, p.String())
		}
		b.WriteString(`</g>`)
		// a seal: the issuer's name round a star, faint
		bk := bookFor(d.Country)
		sx, sy, sr := between(r, 0.55, 0.8)*W, between(r, 0.4, 0.6)*H, H*0.2
		fmt.Fprintf(&b, `<g opacity="0.09" fill="%s"><defs><path id="ring" d="M%.0f %.0f a%.0f %.0f 0 1 1 0.1 0"/></defs>`, line, sx-sr, sy, sr, sr)
		fmt.Fprintf(&b, `<text font-family="Cantarell" font-size="%.0f" letter-spacing="3"><textPath href="#ring">%s · %s ·</textPath></text>`, sr*0.2, esc(bk.countryPrints), esc(bk.countryPrints))
		fmt.Fprintf(&b, `<path d="%s"/></g>`, star(sx, sy, sr*0.55, sr*0.22, 5))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// star is an SVG path of an n-pointed star.
func star(cx, cy, ro, ri float64, n int) string {
	var p strings.Builder
	for i := 0; i < 2*n; i++ {
		rad := ro
		if i%2 == 1 {
			rad = ri
		}
		t := float64(i)*math.Pi/float64(n) - math.Pi/2
		c := "L"
		if i == 0 {
			c = "M"
		}
		fmt.Fprintf(&p, "%s%.1f %.1f ", c, cx+rad*math.Cos(t), cy+rad*math.Sin(t))
	}
	return p.String() + "Z"
}

// decoration is the content of a decorative block.
func decoration(bl blk, in pageInput) string {
	W, H := bl.w*pxPerMM, bl.h*pxPerMM
	country := in.h.country
	fl := flags[country]
	if fl == nil {
		fl = flags["UTO"]
	}
	switch bl.kind {
	case "flag":
		// stripes across the box, top to bottom
		var stops []string
		for i, c := range fl {
			a, b := float64(i)/float64(len(fl))*100, float64(i+1)/float64(len(fl))*100
			stops = append(stops, fmt.Sprintf("%s %.1f%%, %s %.1f%%", c, a, c, b))
		}
		dir := "180deg"
		if bl.cls == "v" {
			dir = "90deg"
		}
		return fmt.Sprintf(`<div style="width:100%%;height:100%%;background:linear-gradient(%s, %s)"></div>`, dir, strings.Join(stops, ", "))
	case "chip":
		// a contact chip: gold with its contact pads
		return fmt.Sprintf(`<svg width="%.0f" height="%.0f" viewBox="0 0 100 80"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#e9d38a"/><stop offset=".5" stop-color="#c9a548"/><stop offset="1" stop-color="#f1df9f"/></linearGradient></defs><rect x="1" y="1" width="98" height="78" rx="12" fill="url(#g)" stroke="#9c7d2c" stroke-width="2"/><path d="M1 27H35V1M65 1V27H99M1 53H35V79M65 79V53H99M35 27H65V53H35Z" fill="none" stroke="#8a6c22" stroke-width="2.2"/></svg>`, W, H)
	case "emblem":
		// an arms-like emblem: shield, spears and a ribbon
		c := countryInks[country]
		if c == nil {
			c = countryInks["UTO"]
		}
		return fmt.Sprintf(`<svg width="%.0f" height="%.0f" viewBox="-60 -60 120 120"><g stroke="%s" stroke-width="3" fill="none"><line x1="-42" y1="-48" x2="42" y2="48"/><line x1="42" y1="-48" x2="-42" y2="48"/></g><path d="M0 -40 C22 -40 28 -30 28 -8 C28 18 14 32 0 42 C-14 32 -28 18 -28 -8 C-28 -30 -22 -40 0 -40Z" fill="%s" stroke="%s" stroke-width="2"/><path d="M-28 -6H28M-28 6H28" stroke="%s" stroke-width="5"/><path d="M-46 44 Q0 60 46 44 L44 52 Q0 68 -44 52Z" fill="%s"/></svg>`,
			W, H, c[0], fl[0], c[0], fl[len(fl)/2], c[1])
	case "holo":
		return `<div style="width:100%;height:100%;border-radius:50%;opacity:.28;background:conic-gradient(from 30deg, #ff9ad5, #9ad0ff, #aaffc3, #fff3a0, #ff9ad5)"></div>`
	case "print":
		// a thumbprint: concentric loops
		var b strings.Builder
		fmt.Fprintf(&b, `<svg width="%.0f" height="%.0f" viewBox="-50 -60 100 120"><rect x="-50" y="-60" width="100" height="120" fill="none" stroke="#777" stroke-width="1.5"/><g fill="none" stroke="#555" stroke-width="1.6">`, W, H)
		for k := 1; k < 12; k++ {
			rx, ry := 3.5*float64(k), 4.6*float64(k)
			fmt.Fprintf(&b, `<path d="M%.1f 10 A%.1f %.1f 0 1 1 %.1f 10"/>`, -rx, rx, ry, rx)
		}
		b.WriteString(`</g></svg>`)
		return b.String()
	case "stamp":
		c := countryInks[country]
		if c == nil {
			c = countryInks["UTO"]
		}
		return fmt.Sprintf(`<svg width="%.0f" height="%.0f" viewBox="-50 -50 100 100"><g fill="none" stroke="%s" stroke-width="2" opacity=".35"><circle r="46"/><circle r="36"/></g><path d="%s" fill="%s" opacity=".3"/></svg>`,
			W, H, c[1], star(0, 0, 26, 11, 5), c[1])
	}
	return ""
}

// signature is an SVG scribble: a pen path through loops drifting right,
// with a flourish under it.
func signature(r *rand.Rand, wmm, hmm float64, ink string) string {
	W, H := wmm*pxPerMM, hmm*pxPerMM
	var p strings.Builder
	x, y := W*0.08, H*0.6
	fmt.Fprintf(&p, "M%.1f %.1f", x, y)
	n := 5 + r.IntN(5)
	for i := 0; i < n; i++ {
		dx := W * 0.8 / float64(n)
		c1x, c1y := x+dx*between(r, -0.2, 0.6), H*between(r, 0.05, 0.4)
		c2x, c2y := x+dx*between(r, 0.3, 1.2), H*between(r, 0.55, 0.95)
		x += dx
		y = H * between(r, 0.35, 0.7)
		fmt.Fprintf(&p, " C%.1f %.1f %.1f %.1f %.1f %.1f", c1x, c1y, c2x, c2y, x, y)
	}
	fmt.Fprintf(&p, " M%.1f %.1f Q%.1f %.1f %.1f %.1f", W*0.12, H*0.8, W*0.5, H*between(r, 0.9, 1.0), W*0.9, H*0.7)
	return fmt.Sprintf(`<svg width="%.0f" height="%.0f"><path d="%s" fill="none" stroke="%s" stroke-width="%.1f" stroke-linecap="round" stroke-linejoin="round"/></svg>`,
		W, H, p.String(), ink, between(r, 1.6, 2.6))
}

// barcodeURI draws the definition's barcode for text as a PNG data URI.
func barcodeURI(kind, text string) (string, error) {
	var img image.Image
	switch kind {
	case "qr":
		m, err := qrcode.NewQRCodeWriter().Encode(text, gozxing.BarcodeFormat_QR_CODE, 0, 0,
			map[gozxing.EncodeHintType]any{gozxing.EncodeHintType_MARGIN: 1})
		if err != nil {
			return "", err
		}
		img = m
	case "pdf417":
		bc, err := pdf417.Encode(text, 2)
		if err != nil {
			return "", err
		}
		img = bc
	default:
		return "", fmt.Errorf("htmlcards: barcode kind %q", kind)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", err
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}
