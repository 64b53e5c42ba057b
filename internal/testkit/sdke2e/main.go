// Command sdke2e makes what the SDKs' end-to-end tests (sdk/test) need
// from Go: a synthetic capture set and a fake-camera video of it, and the
// reading of a QR code the browser showed (a screenshot).
//
//	go run ./internal/testkit/sdke2e capture -out DIR [-seed N] [-config C]
//	go run ./internal/testkit/sdke2e qr FILE.png
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	_ "image/png"
	"io"
	"os"
	"path/filepath"

	"github.com/disintegration/imaging"
	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/synth"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: sdke2e capture [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "capture":
		err = capture(os.Args[2:])
	case "qr":
		err = readQR(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sdke2e:", err)
		os.Exit(1)
	}
}

// The fake camera's layout, shared with sdk/test/e2e.mjs: a 960x540
// video shown full-screen in a 960x540 page, so a video pixel is a CSS
// pixel. The SDK's ID frame there is 565x356 at (197, 81) (core
// geometry.ts, idFrameRect) and its selfie box 280x350 centred at
// (480, 259).
const (
	camW, camH = 960, 540
	fps        = 5
	segSeconds = 3
)

// Marker colours: a 14x14 patch in each scene's top-left corner, inside
// the SDK's crop but off the card and the face, so the tests can tell from
// a captured image which scene it was taken from.
var markers = map[string]color.RGBA{
	"front":  {230, 20, 20, 255},
	"back":   {20, 200, 20, 255},
	"selfie": {20, 40, 230, 255},
}

func capture(args []string) error {
	fs := flag.NewFlagSet("capture", flag.ExitOnError)
	out := fs.String("out", "", "output folder")
	seed := fs.Uint64("seed", 11, "synth seed")
	config := fs.String("config", "ke_passport", "document definition")
	_ = fs.Parse(args)
	if *out == "" {
		return errors.New("-out is required")
	}
	def, ok := docdefs.Default().Definition(*config)
	if !ok {
		return fmt.Errorf("no definition %s", *config)
	}
	gen, err := synth.New(synth.Options{Definitions: []*idv.DocumentDefinition{def}, Seed: *seed, Difficulty: synth.Easy, ImpostorRate: -1})
	if err != nil {
		return err
	}
	smp, err := gen.Sample(context.Background(), 0)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for name, b := range map[string][]byte{"front.jpg": smp.Front, "back.jpg": smp.Back, "selfie.jpg": smp.Selfie} {
		if err := os.WriteFile(filepath.Join(*out, name), b, 0o644); err != nil {
			return err
		}
	}
	truth, _ := json.MarshalIndent(smp.Truth, "", "  ")
	if err := os.WriteFile(filepath.Join(*out, "truth.json"), truth, 0o644); err != nil {
		return err
	}
	selfie, err := jpeg.Decode(bytesReader(smp.Selfie))
	if err != nil {
		return err
	}
	type scene struct {
		name string
		img  *image.RGBA
	}
	scenes := []scene{{"front", cardScene(smp.FrontCard, markers["front"])}}
	// A one-sided document (a passport) is sent twice, front and back, as
	// the spec says: the video shows its data page for both steps. The
	// tests then never wait on the video's timing to reach the back, which
	// a loaded machine makes unpredictable.
	if smp.Truth.BackSide != "facing_page" {
		scenes = append(scenes, scene{"back", cardScene(smp.BackCard, markers["back"])})
	}
	scenes = append(scenes, scene{"selfie", selfieScene(selfie, markers["selfie"])})
	for _, sc := range scenes {
		if err := writeJPEG(filepath.Join(*out, "scene-"+sc.name+".jpg"), sc.img); err != nil {
			return err
		}
		// The luma as PGM, for the quality-guidance test in Node.
		if err := os.WriteFile(filepath.Join(*out, "scene-"+sc.name+".pgm"), pgm(sc.img), 0o644); err != nil {
			return err
		}
	}
	f, err := os.Create(filepath.Join(*out, "camera.y4m"))
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	// C420jpeg: full-range BT.601, what color.RGBToYCbCr computes.
	fmt.Fprintf(w, "YUV4MPEG2 W%d H%d F%d:1 Ip A1:1 C420jpeg\n", camW, camH, fps)
	for _, sc := range scenes {
		frame := yuv420(sc.img)
		for i := 0; i < fps*segSeconds; i++ {
			w.WriteString("FRAME\n")
			w.Write(frame)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// background is a dark desk with a faint deterministic texture.
func background() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, camW, camH))
	for y := 0; y < camH; y++ {
		for x := 0; x < camW; x++ {
			n := uint8((x*7 + y*13 + (x*y)%17) % 9)
			img.SetRGBA(x, y, color.RGBA{58 + n, 50 + n, 44 + n, 255})
		}
	}
	return img
}

// cardScene puts a flat card in the SDK's frame, 90% of its size.
func cardScene(card *image.RGBA, marker color.RGBA) *image.RGBA {
	img := background()
	const fx, fy, fw, fh = 197, 81, 565, 356
	// 90% of the frame each way at most (a passport page is taller than ID-1).
	cw := fw * 9 / 10
	ch := cw * card.Bounds().Dy() / card.Bounds().Dx()
	if ch > fh*9/10 {
		ch = fh * 9 / 10
		cw = ch * card.Bounds().Dx() / card.Bounds().Dy()
	}
	scaled := imaging.Resize(card, cw, ch, imaging.Lanczos)
	at := image.Pt(fx+(fw-cw)/2, fy+(fh-ch)/2)
	draw.Draw(img, scaled.Bounds().Add(at), scaled, image.Point{}, draw.Over)
	patch(img, fx+3, fy+3, marker)
	return img
}

// selfieScene puts the selfie photo, full height, in the middle.
func selfieScene(selfie image.Image, marker color.RGBA) *image.RGBA {
	img := background()
	scaled := imaging.Resize(selfie, 0, camH, imaging.Lanczos)
	at := image.Pt((camW-scaled.Bounds().Dx())/2, 0)
	draw.Draw(img, scaled.Bounds().Add(at), scaled, image.Point{}, draw.Src)
	patch(img, 480-140+3, 259-175+3, marker)
	return img
}

func patch(img *image.RGBA, x0, y0 int, c color.RGBA) {
	draw.Draw(img, image.Rect(x0, y0, x0+14, y0+14), &image.Uniform{c}, image.Point{}, draw.Src)
}

// yuv420 is one y4m frame: the Y plane, then Cb and Cr subsampled 2x2.
func yuv420(img *image.RGBA) []byte {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	out := make([]byte, w*h+2*(w/2)*(h/2))
	cb, cr := out[w*h:], out[w*h+(w/2)*(h/2):]
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := img.RGBAAt(x, y)
			yy, _, _ := color.RGBToYCbCr(c.R, c.G, c.B)
			out[y*w+x] = yy
		}
	}
	for y := 0; y < h/2; y++ {
		for x := 0; x < w/2; x++ {
			var r, g, b int
			for _, d := range [4][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
				c := img.RGBAAt(2*x+d[0], 2*y+d[1])
				r, g, b = r+int(c.R), g+int(c.G), b+int(c.B)
			}
			_, u, v := color.RGBToYCbCr(uint8(r/4), uint8(g/4), uint8(b/4))
			cb[y*(w/2)+x], cr[y*(w/2)+x] = u, v
		}
	}
	return out
}

func writeJPEG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := jpeg.Encode(f, img, &jpeg.Options{Quality: 92}); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// pgm is a binary greyscale PGM of the image's BT.601 luma.
func pgm(img *image.RGBA) []byte {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	out := []byte(fmt.Sprintf("P5\n%d %d\n255\n", w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := img.RGBAAt(x, y)
			yy, _, _ := color.RGBToYCbCr(c.R, c.G, c.B)
			out = append(out, yy)
		}
	}
	return out
}

// readQR prints the text of the QR code in an image file.
func readQR(args []string) error {
	if len(args) != 1 {
		return errors.New("usage: sdke2e qr FILE")
	}
	f, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		return err
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		return err
	}
	res, err := qrcode.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		return fmt.Errorf("no QR code read: %w", err)
	}
	fmt.Println(res.GetText())
	return nil
}
