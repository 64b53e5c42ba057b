package ocr

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"sort"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/tambua/tambua/idv"
)

// Annotate draws a side's page reading (grey boxes), each caption found
// (blue), each value (green when valid, red when not) and the text read,
// over the rectified side src: what tambua docdefs try writes for an
// integrator checking a definition on a sample photo.
func Annotate(src image.Image, side string, d *idv.DocumentDefinition, ex *Extraction) *image.RGBA {
	b := src.Bounds()
	// A band under the card lists what each field read, so labels on the
	// card stay legible.
	var names []string
	for _, f := range d.Fields {
		if f.Zone.Side == side && f.Fixed == "" {
			names = append(names, f.Name)
		}
	}
	sort.Strings(names)
	band := 16 * (len(names) + 1)
	img := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()+band))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(0, 0, b.Dx(), b.Dy()), src, b.Min, draw.Src)
	px := func(bx *Box) image.Rectangle {
		return image.Rect(int(bx.X*float64(b.Dx())), int(bx.Y*float64(b.Dy())), int((bx.X+bx.W)*float64(b.Dx())), int((bx.Y+bx.H)*float64(b.Dy())))
	}
	grey := color.RGBA{150, 150, 150, 255}
	blue := color.RGBA{20, 70, 230, 255}
	green := color.RGBA{0, 160, 40, 255}
	red := color.RGBA{220, 20, 20, 255}
	for _, w := range ex.Words[side] {
		drawRect(img, px(&w.Box), grey, 1)
	}
	for i, name := range names {
		l, ok := ex.Located[name]
		c := red
		if ok && l.Valid {
			c = green
		}
		if ok && l.Label != nil {
			r := px(l.Label)
			drawRect(img, r, blue, 2)
			drawText(img, r.Min.X, r.Min.Y-2, name, blue)
		}
		if ok && l.Value != nil {
			r := px(l.Value)
			drawRect(img, r, c, 2)
			drawText(img, r.Min.X, r.Max.Y+12, ex.Fields[name], c)
		}
		how := "not found"
		if ok && l.How != "" {
			how = l.How
		}
		drawText(img, 6, b.Dy()+14+16*i, fmt.Sprintf("%s = %q  (%s; read %s)", name, ex.Fields[name], how, strings.ReplaceAll(l.Raw, "\n", " ")), c)
	}
	return img
}

func drawRect(img *image.RGBA, r image.Rectangle, c color.Color, t int) {
	for i := 0; i < t; i++ {
		for x := r.Min.X - i; x <= r.Max.X+i; x++ {
			img.Set(x, r.Min.Y-i, c)
			img.Set(x, r.Max.Y+i, c)
		}
		for y := r.Min.Y - i; y <= r.Max.Y+i; y++ {
			img.Set(r.Min.X-i, y, c)
			img.Set(r.Max.X+i, y, c)
		}
	}
}

// drawText writes s at (x, y) (baseline) on a white backing so it reads over
// the card's artwork.
func drawText(img *image.RGBA, x, y int, s string, c color.Color) {
	face := basicfont.Face7x13
	w := font.MeasureString(face, s).Ceil()
	draw.Draw(img, image.Rect(x-1, y-11, x+w+1, y+3), image.White, image.Point{}, draw.Src)
	dr := &font.Drawer{Dst: img, Src: image.NewUniform(c), Face: face, Dot: fixed.P(x, y)}
	dr.DrawString(s)
}
