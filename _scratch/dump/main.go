package main

import (
	"image/jpeg"
	"image/png"
	"os"
)

func main() {
	f, _ := os.Open(os.Args[1])
	img, err := jpeg.Decode(f)
	if err != nil {
		panic(err)
	}
	o, _ := os.Create(os.Args[2])
	png.Encode(o, img)
	o.Close()
}
