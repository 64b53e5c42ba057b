package synth

import (
	"image"
	"math"
)

// Selfie is every parameter of one selfie: the staging of the face in the
// frame and the front camera's rendering.
type Selfie struct {
	Width      int      `json:"width"`
	Height     int      `json:"height"`
	Room       string   `json:"room"`
	Pose       Portrait `json:"pose"`
	Exposure   float64  `json:"exposure"`
	LightGrad  float64  `json:"light_gradient"`
	LightAngle float64  `json:"light_angle_deg"`
	ColourTemp float64  `json:"colour_temperature"`
	Defocus    float64  `json:"defocus_sigma"`
	Noise      float64  `json:"noise"`
	JPEG       float64  `json:"jpeg_quality"`
	RoomSeed   uint64   `json:"room_seed,string"`
	NoiseSeed  uint64   `json:"noise_seed,string"`
}

var roomKinds = []string{"office", "living_room", "outdoor", "plain_wall", "kitchen"}

func drawSelfie(g *rng, d Difficulty, face *image.RGBA) Selfie {
	rg := difficultyRanges[d]
	s := Selfie{Width: 960, Height: 1280, Room: pick(g, roomKinds)}
	clothes := []rgb{{30, 32, 40}, {45, 60, 110}, {140, 30, 40}, {220, 220, 215}, {70, 100, 70}, {200, 160, 60}, {90, 90, 95}}
	s.Pose = Portrait{
		Clothing:  toInts(pick(g, clothes)),
		FaceScale: round3(g.rangef(0.4, 0.6)),
		CentreX:   round3(g.rangef(0.4, 0.6)),
		CentreY:   round3(g.rangef(0.34, 0.48)),
		RollDeg:   round2(g.rangef(-9, 9)),
		Hair:      drawHair(g, face),
	}
	s.Exposure = round3(g.rangef(rg.exposure[0], rg.exposure[1]))
	s.LightGrad = round3(g.rangef(rg.uneven[0], rg.uneven[1]) * 1.3)
	s.LightAngle = round2(g.rangef(0, 360))
	s.ColourTemp = round3(g.rangef(-rg.colourTemperature, rg.colourTemperature))
	s.Defocus = round2(g.rangef(rg.defocus[0], rg.defocus[1]) * 0.8)
	s.Noise = round2(g.rangef(rg.noise[0], rg.noise[1]))
	s.JPEG = round3(g.rangef(rg.jpeg[0], rg.jpeg[1]))
	s.RoomSeed = g.r.Uint64()
	s.NoiseSeed = g.r.Uint64() | 1
	return s
}

// room paints a blurred indoor or outdoor scene behind the person.
func room(kind string, w, h int, g *rng) *image.RGBA {
	lw, lh := w/4, h/4
	c := newCanvas(lw, lh)
	wall := pick(g, []rgb{{215, 205, 185}, {190, 200, 205}, {230, 228, 220}, {170, 160, 150}, {200, 185, 160}})
	switch kind {
	case "outdoor":
		sky := rgb{150, 185, 225}
		for y := 0; y < lh; y++ {
			t := float64(y) / float64(lh)
			col := sky.mix(rgb{210, 225, 240}, t)
			if t > 0.55 {
				col = rgb{80, 120, 60}.mix(rgb{60, 90, 45}, (t-0.55)*2)
			}
			for x := 0; x < lw; x++ {
				c.set(x, y, col)
			}
		}
		for i := 0; i < 14; i++ {
			var p path
			p.ellipse(vec{g.rangef(0, float64(lw)), g.rangef(0.3, 0.65) * float64(lh)}, g.rangef(10, 40), g.rangef(10, 35), 24)
			c.fill(&p, rgb{50, 90, 40}.scale(g.rangef(0.7, 1.3)), 0.9)
		}
	default:
		c.fillAll(wall)
		// a lit and a shaded wall, a door or window, furniture
		var shade path
		sx := g.rangef(0.2, 0.8) * float64(lw)
		shade.rect(sx, 0, float64(lw)-sx, float64(lh))
		c.fill(&shade, wall.scale(0.8), 0.6)
		for i := 0; i < g.between(2, 4); i++ {
			var p path
			x, y := g.rangef(-0.1, 0.9)*float64(lw), g.rangef(-0.1, 0.6)*float64(lh)
			p.rect(x, y, g.rangef(0.15, 0.4)*float64(lw), g.rangef(0.2, 0.6)*float64(lh))
			col := pick(g, []rgb{{245, 245, 240}, {120, 80, 50}, {60, 60, 65}, {170, 200, 230}, {140, 120, 100}})
			c.fill(&p, col, g.rangef(0.6, 1))
		}
		if kind == "kitchen" || kind == "office" {
			var p path
			p.rect(0, 0.7*float64(lh), float64(lw), 0.3*float64(lh))
			c.fill(&p, pick(g, []rgb{{150, 110, 80}, {200, 200, 200}, {90, 80, 70}}), 1)
		}
	}
	f := fimgFromRGBA(c.img)
	gaussBlur(f.pix, f.w, f.h, 3, 3)
	return resizeUp(f, w, h).toRGBA()
}

func (c *canvas) set(x, y int, col rgb) {
	i := y*c.img.Stride + x*4
	c.img.Pix[i], c.img.Pix[i+1], c.img.Pix[i+2], c.img.Pix[i+3] = clamp8(float32(col.R)), clamp8(float32(col.G)), clamp8(float32(col.B)), 255
}

// stageSelfie is the scene in front of the camera, before the camera: the
// photo of the person, its edges fading into a blurred room.
func stageSelfie(face *image.RGBA, s Selfie) *image.RGBA {
	bg := room(s.Room, s.Width, s.Height, newRNG(s.RoomSeed, 2))
	img := portraitOn(bg, face, s.Width, s.Height, s.Pose)
	sharpen(img, 1.6, 0.5)
	return img
}

// shootSelfie applies the front camera: light, focus, noise.
func shootSelfie(scene *image.RGBA, s Selfie) *fimg {
	f := fimgFromRGBA(scene)
	light(f, nil, Capture{Exposure: s.Exposure, LightGradient: s.LightGrad, LightAngleDeg: s.LightAngle, ColourTemp: s.ColourTemp, Vignette: 0.1})
	gaussBlur(f.pix, f.w, f.h, 3, s.Defocus)
	addNoise(f, s.Noise, s.NoiseSeed)
	return f
}

// gammaAdjust maps every channel through v' = 255 (v/255)^gamma * gain + lift.
func gammaAdjust(f *fimg, gamma float64, gain, lift [3]float64) {
	var lut [3][256]float32
	for c := 0; c < 3; c++ {
		for i := 0; i < 256; i++ {
			lut[c][i] = float32(255*math.Pow(float64(i)/255, gamma)*gain[c] + lift[c])
		}
	}
	for i := 0; i < len(f.pix); i += 3 {
		for c := 0; c < 3; c++ {
			v := int(clamp8(f.pix[i+c]))
			f.pix[i+c] = lut[c][v]
		}
	}
}
