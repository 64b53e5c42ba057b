package cardtest

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"

	"github.com/disintegration/imaging"
	"github.com/tambua/tambua/internal/geom"
)

// Scene are the conditions of a simulated phone photo.
type Scene struct {
	Width, Height int
	// Fill is the card's long side as a share of the photo's long side.
	Fill float64
	// Angle is the in-plane rotation of the card in degrees.
	Angle float64
	// Tilt moves each corner by up to this share of the card size, as a
	// hand-held camera does.
	Tilt float64
	// Texture draws a wood-grain background instead of a plain one.
	Texture bool
	// Paper, when set, is the colour of a plain background (default a
	// dark brown desk): a pale card on white paper is the hard case of
	// card finding.
	Paper color.NRGBA
	Blur  float64
	// Glare puts a specular spot of this radius (share of card width) at
	// GlareAt (card-normalised coordinates).
	Glare   float64
	GlareAt [2]float64
	Seed    uint64
	Quality int
}

// Corners are the card's corners in the photo (TL, TR, BR, BL of the card).
type Corners [4][2]float64

// Photo places card in a photo under the scene's conditions and returns the
// JPEG bytes and where the corners landed.
func Photo(card image.Image, s Scene) ([]byte, Corners, error) {
	r := rand.New(rand.NewPCG(s.Seed, 7))
	W, H := s.Width, s.Height
	cb := card.Bounds()
	cw, ch := float64(cb.Dx()), float64(cb.Dy())
	L := s.Fill * float64(max(W, H))
	sc := L / cw
	th := s.Angle * math.Pi / 180
	cs, sn := math.Cos(th), math.Sin(th)
	var c Corners
	base := [4][2]float64{{-cw / 2, -ch / 2}, {cw / 2, -ch / 2}, {cw / 2, ch / 2}, {-cw / 2, ch / 2}}
	for i, p := range base {
		x := p[0]*sc + (r.Float64()*2-1)*s.Tilt*cw*sc
		y := p[1]*sc + (r.Float64()*2-1)*s.Tilt*ch*sc
		c[i] = [2]float64{float64(W)/2 + x*cs - y*sn, float64(H)/2 + x*sn + y*cs}
	}
	// A user frames the whole card: shrink it about the centre until every
	// corner is inside the photo with a small margin.
	fit := 1.0
	for _, p := range c {
		for k, lim := range []float64{float64(W), float64(H)} {
			half := lim / 2
			d := math.Abs(p[k] - half)
			if d > half*0.96 {
				fit = math.Min(fit, half*0.96/d)
			}
		}
	}
	for i := range c {
		c[i][0] = float64(W)/2 + (c[i][0]-float64(W)/2)*fit
		c[i][1] = float64(H)/2 + (c[i][1]-float64(H)/2)*fit
	}
	// Map photo pixels back into the card.
	h, ok := toCard(c, cw, ch)
	if !ok {
		return nil, c, nil
	}
	src := imaging.Clone(card)
	out := image.NewNRGBA(image.Rect(0, 0, W, H))
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			u, v := h.Apply(float64(x)+0.5, float64(y)+0.5)
			o := out.Pix[y*out.Stride+4*x:]
			if u >= 0 && v >= 0 && u < cw-1 && v < ch-1 {
				x0, y0 := int(u), int(v)
				fx, fy := u-float64(x0), v-float64(y0)
				for k := 0; k < 3; k++ {
					p00 := float64(src.Pix[y0*src.Stride+4*x0+k])
					p10 := float64(src.Pix[y0*src.Stride+4*(x0+1)+k])
					p01 := float64(src.Pix[(y0+1)*src.Stride+4*x0+k])
					p11 := float64(src.Pix[(y0+1)*src.Stride+4*(x0+1)+k])
					o[k] = uint8((p00*(1-fx)+p10*fx)*(1-fy) + (p01*(1-fx)+p11*fx)*fy)
				}
				if s.Glare > 0 {
					gx, gy := (u/cw-s.GlareAt[0])/s.Glare, (v/ch-s.GlareAt[1])/s.Glare*ch/cw
					g := math.Exp(-(gx*gx + gy*gy) * 1.5)
					for k := 0; k < 3; k++ {
						o[k] = uint8(math.Min(255, float64(o[k])+g*400))
					}
				}
			} else {
				var v float64
				if s.Paper.A != 0 && !s.Texture {
					n := 4 * (r.Float64() - 0.5)
					o[0], o[1], o[2] = clampByte(float64(s.Paper.R)+n), clampByte(float64(s.Paper.G)+n), clampByte(float64(s.Paper.B)+n)
					o[3] = 255
					continue
				}
				if s.Texture {
					// Wood grain: warped stripes with knots and noise.
					v = 120 + 45*math.Sin(float64(x)/7+5*math.Sin(float64(y)/90)+2*math.Sin(float64(x+y)/37)) + 20*(r.Float64()-0.5)
				} else {
					v = 70 + 10*math.Sin(float64(x+y)/150)
				}
				o[0], o[1], o[2] = uint8(math.Max(0, math.Min(255, v*1.1))), uint8(math.Max(0, math.Min(255, v*0.8))), uint8(math.Max(0, math.Min(255, v*0.55)))
			}
			o[3] = 255
		}
	}
	var img image.Image = out
	if s.Blur > 0 {
		img = imaging.Blur(out, s.Blur)
	}
	q := s.Quality
	if q == 0 {
		q = 88
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: q}); err != nil {
		return nil, c, err
	}
	return b.Bytes(), c, nil
}

func clampByte(v float64) uint8 { return uint8(math.Max(0, math.Min(255, v))) }

// toCard returns the homography from photo coordinates to card
// coordinates.
func toCard(c Corners, cw, ch float64) (geom.Homography, bool) {
	return geom.HomographyFrom(c, [4][2]float64{{0, 0}, {cw, 0}, {cw, ch}, {0, ch}})
}
