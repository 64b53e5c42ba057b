package main

import (
	"image"
	"image/draw"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
)

func main() {
	dir := "/usr/share/doc/libdlib19.1/examples/johns"
	people, _ := os.ReadDir(dir)
	out := image.NewRGBA(image.Rect(0, 0, 150*6, 150*5))
	for i, p := range people {
		files, _ := os.ReadDir(filepath.Join(dir, p.Name()))
		for j, f := range files[:6] {
			fh, _ := os.Open(filepath.Join(dir, p.Name(), f.Name()))
			img, _ := jpeg.Decode(fh)
			fh.Close()
			draw.Draw(out, image.Rect(j*150, i*150, j*150+150, i*150+150), img, image.Point{}, draw.Src)
		}
	}
	f, _ := os.Create("/tmp/pv/johns.png")
	png.Encode(f, out)
	f.Close()
}
