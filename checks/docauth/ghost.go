package docauth

import (
	"image"
	"math"
)

// ghostMatch is how well the secondary ("ghost") portrait shows the face
// of the main portrait. A genuine card prints both from the same photo, so
// the ghost is the main portrait again, smaller, paler and often over the
// background print: at the right scale and place its features (eyes,
// brows, nose, mouth) line up with the main portrait's. A swapped portrait
// shows another face (or the same face from another photo, framed
// differently), while the ghost still shows the holder's.
type ghostMatch struct {
	// NCC is the best normalised cross-correlation of the main face's
	// band-passed features with the ghost's, over scales and places.
	NCC float64
	// Scale is the ghost's scale at that match over the scale the zones
	// imply (ghost zone width over photo zone width): near 1 when the
	// ghost is the main portrait reduced to its zone.
	Scale float64
	// Ceiling is the correlation the ghost's own print could give a
	// perfect copy of the main face at that match: the share of the
	// matched window's detail that stands above the detail of the card
	// around the ghost zone (guilloche, print), as sqrt((V-N)/V) with V
	// the window's detail variance and N the surround's. A ghost printed
	// clearly over a quiet background can correlate near 1 with its own
	// face; a faint ghost over busy print cannot.
	Ceiling float64
}

// mismatch tells whether the ghost shows another face than the main
// portrait: a correlation under ghostMinNCC, or under ghostMinShare of
// what the ghost's own print allows.
func (m ghostMatch) mismatch() bool {
	return m.NCC < ghostMinNCC || m.NCC < ghostMinShare*m.Ceiling
}

// Parameters of the ghost comparison. The template is the main portrait's
// face (dlib's frontal box: brows to chin) reduced to ghostFaceW px wide;
// its features are compared in the band between ghostBand1 and ghostBand2
// px (Gaussian standard deviations at that size), which holds the eyes,
// nose and mouth and leaves out the face's outline and the tint; the
// ghost is searched at scales from ghostScaleLo to ghostScaleHi times the
// zones' ratio. Chosen on seed 58 (base, shift, art and columns families,
// easy and medium; the five definitions with a ghost image) among the
// template widths 28, 40 and 56 px and bands (0.8, 3), (1, 4), (1.2, 5),
// (1.5, 6): the narrower template separated genuine cards from swaps as
// well as the wider ones at a third of the cost.
const (
	ghostFaceW   = 28
	ghostBand1   = 1.0
	ghostBand2   = 4.0
	ghostScaleLo = 0.6
	ghostScaleHi = 1.6
	ghostStep    = 1.06
)

// compareGhost finds the main portrait's face (box face, in portrait's
// coordinates) in ghost. expect is the ghost's scale relative to the
// portrait that the definition's zones imply; text are the boxes of words
// read over the ghost (in ghost's pixels). ok is false when either picture
// is too small to compare.
func compareGhost(portrait *plane, face image.Rectangle, ghost *plane, expect float64, text []image.Rectangle) (ghostMatch, bool) {
	if face.Dx() < 24 || face.Dy() < 24 || ghost.w < 16 || ghost.h < 16 || expect <= 0 {
		return ghostMatch{}, false
	}
	k := float64(ghostFaceW) / float64(face.Dx())
	pw, ph := int(math.Round(float64(portrait.w)*k)), int(math.Round(float64(portrait.h)*k))
	pb := portrait.resized(pw, ph).bandPass(ghostBand1, ghostBand2)
	tr := image.Rect(int(float64(face.Min.X)*k), int(float64(face.Min.Y)*k), int(float64(face.Max.X)*k), int(float64(face.Max.Y)*k))
	tpl := pb.sub(tr)
	if tpl.w < 8 || tpl.h < 8 {
		return ghostMatch{}, false
	}
	// the template, centred and of unit norm
	var mean float64
	for _, v := range tpl.p {
		mean += float64(v)
	}
	mean /= float64(len(tpl.p))
	var norm float64
	t := make([]float64, len(tpl.p))
	for i, v := range tpl.p {
		t[i] = float64(v) - mean
		norm += t[i] * t[i]
	}
	if math.Sqrt(norm/float64(len(t))) < 0.5 {
		// a face without features at this scale (a flat or blank photo)
		return ghostMatch{}, false
	}
	norm = math.Sqrt(norm)
	for i := range t {
		t[i] /= norm
	}
	best := ghostMatch{NCC: -1}
	for s := expect * ghostScaleLo; s <= expect*ghostScaleHi; s *= ghostStep {
		// the ghost resampled so that a face s times the portrait's is
		// as wide as the template
		gk := k / s
		gw, gh := int(math.Round(float64(ghost.w)*gk)), int(math.Round(float64(ghost.h)*gk))
		if gw < tpl.w+2 || gh < tpl.h+2 {
			continue
		}
		gb := ghost.resized(gw, gh).bandPass(ghostBand1, ghostBand2)
		// print over the ghost (a date, a number) is no part of the face:
		// its detail is taken out, so it neither matches nor mismatches
		for _, r := range text {
			tr := image.Rect(int(float64(r.Min.X)*gk)-1, int(float64(r.Min.Y)*gk)-1, int(math.Ceil(float64(r.Max.X)*gk))+1, int(math.Ceil(float64(r.Max.Y)*gk))+1).Intersect(image.Rect(0, 0, gw, gh))
			for y := tr.Min.Y; y < tr.Max.Y; y++ {
				for x := tr.Min.X; x < tr.Max.X; x++ {
					gb.p[y*gw+x] = 0
				}
			}
		}
		if c, v := bestCorrelation(gb, t, tpl.w, tpl.h); c > best.NCC {
			best = ghostMatch{NCC: c, Scale: s / expect, Ceiling: ghostCeiling(gb, v)}
		}
	}
	if best.NCC < -0.5 {
		return ghostMatch{}, false
	}
	return best, true
}

// bestCorrelation is the largest normalised cross-correlation of the
// zero-mean, unit-norm template t (tw x th) over every place in g. Window
// sums come from summed-area tables.
func bestCorrelation(g *plane, t []float64, tw, th int) (float64, float64) {
	w, h := g.w, g.h
	s1 := make([]float64, (w+1)*(h+1))
	s2 := make([]float64, (w+1)*(h+1))
	for y := 0; y < h; y++ {
		var r1, r2 float64
		for x := 0; x < w; x++ {
			v := float64(g.p[y*w+x])
			r1 += v
			r2 += v * v
			s1[(y+1)*(w+1)+x+1] = s1[y*(w+1)+x+1] + r1
			s2[(y+1)*(w+1)+x+1] = s2[y*(w+1)+x+1] + r2
		}
	}
	n := float64(tw * th)
	best, bestVar := -1.0, 0.0
	for y := 0; y+th <= h; y++ {
		for x := 0; x+tw <= w; x++ {
			a, b, c, d := y*(w+1)+x, y*(w+1)+x+tw, (y+th)*(w+1)+x, (y+th)*(w+1)+x+tw
			sum := s1[d] - s1[b] - s1[c] + s1[a]
			sq := s2[d] - s2[b] - s2[c] + s2[a]
			v := sq - sum*sum/n
			if v <= 1e-9 {
				continue
			}
			// the template has zero mean, so the window's mean drops out
			var dot float64
			for j := 0; j < th; j++ {
				row := g.p[(y+j)*w+x : (y+j)*w+x+tw]
				tr := t[j*tw : (j+1)*tw]
				for i, q := range row {
					dot += float64(q) * tr[i]
				}
			}
			if c := dot / math.Sqrt(v); c > best {
				best, bestVar = c, v/n
			}
		}
	}
	return best, bestVar
}

// ghostCeiling is ghostMatch.Ceiling for a match whose window's detail
// variance per pixel is v, in g, the band-passed crop of the ghost zone
// grown by a fifth of its size each way (compareGhost's ghost): the
// surround is that margin, the outer sixth of the crop on each side, its
// own border (where the band-pass runs off the picture) left out.
func ghostCeiling(g *plane, v float64) float64 {
	if v <= 0 {
		return 0
	}
	mx, my := g.w/7, g.h/7
	var s, q, n float64
	for y := 2; y < g.h-2; y++ {
		for x := 2; x < g.w-2; x++ {
			if x >= mx && x < g.w-mx && y >= my && y < g.h-my {
				continue
			}
			f := float64(g.p[y*g.w+x])
			s += f
			q += f * f
			n++
		}
	}
	if n < 16 {
		return 0
	}
	clutter := q/n - (s/n)*(s/n)
	return math.Sqrt(math.Max(v-clutter, 0) / v)
}
