package synth

import (
	"bytes"
	"encoding/binary"
	"image"
)

// Phones store the sensor's pixels and say in EXIF how to turn them for
// display. exifJPEG returns the JPEG of a picture as a phone stores it for
// orientation o (1 upright, 3 upside down, 6 turn 90° clockwise to show,
// 8 turn 90° anticlockwise to show): the pixels turned the other way, with
// an APP1 Exif segment carrying the tag. A reader that honours EXIF sees f.
func exifJPEG(f *fimg, quality float64, o int) ([]byte, error) {
	var stored *fimg
	switch o {
	case 3:
		stored = rotate180(f)
	case 6:
		stored = rotateCCW(f)
	case 8:
		stored = rotateCW(f)
	default:
		return encodeJPEG(f, quality)
	}
	b, err := encodeJPEG(stored, quality)
	if err != nil {
		return nil, err
	}
	return InsertEXIFOrientation(b, o), nil
}

// InsertEXIFOrientation puts an APP1 segment with a one-entry IFD0
// (Orientation, tag 0x0112) right after the JPEG's SOI marker.
func InsertEXIFOrientation(jpg []byte, o int) []byte {
	var tiff bytes.Buffer
	tiff.WriteString("II*\x00")
	binary.Write(&tiff, binary.LittleEndian, uint32(8)) // IFD0 offset
	binary.Write(&tiff, binary.LittleEndian, uint16(1)) // one entry
	binary.Write(&tiff, binary.LittleEndian, uint16(0x0112))
	binary.Write(&tiff, binary.LittleEndian, uint16(3)) // SHORT
	binary.Write(&tiff, binary.LittleEndian, uint32(1))
	binary.Write(&tiff, binary.LittleEndian, uint16(o))
	binary.Write(&tiff, binary.LittleEndian, uint16(0)) // padding of the value field
	binary.Write(&tiff, binary.LittleEndian, uint32(0)) // no next IFD
	payload := append([]byte("Exif\x00\x00"), tiff.Bytes()...)
	seg := []byte{0xFF, 0xE1, byte((len(payload) + 2) >> 8), byte(len(payload) + 2)}
	out := make([]byte, 0, len(jpg)+len(seg)+len(payload))
	out = append(out, jpg[:2]...) // SOI
	out = append(out, seg...)
	out = append(out, payload...)
	return append(out, jpg[2:]...)
}

func rotate180(f *fimg) *fimg {
	out := newFimg(f.w, f.h)
	n := f.w * f.h
	for i := 0; i < n; i++ {
		copy(out.pix[(n-1-i)*3:(n-i)*3], f.pix[i*3:i*3+3])
	}
	return out
}

// rotateCW turns the picture 90° clockwise.
func rotateCW(f *fimg) *fimg {
	out := newFimg(f.h, f.w)
	for y := 0; y < f.h; y++ {
		for x := 0; x < f.w; x++ {
			// (x, y) -> (h-1-y, x)
			copy(out.pix[(x*out.w+(f.h-1-y))*3:], f.pix[(y*f.w+x)*3:(y*f.w+x)*3+3])
		}
	}
	return out
}

// rotateCCW turns the picture 90° anticlockwise.
func rotateCCW(f *fimg) *fimg {
	out := newFimg(f.h, f.w)
	for y := 0; y < f.h; y++ {
		for x := 0; x < f.w; x++ {
			// (x, y) -> (y, w-1-x)
			copy(out.pix[((f.w-1-x)*out.w+y)*3:], f.pix[(y*f.w+x)*3:(y*f.w+x)*3+3])
		}
	}
	return out
}

// exifOrientation reads back the orientation tag exifJPEG wrote (1 when
// there is none or it cannot be read).
func exifOrientation(b []byte) int {
	i := bytes.Index(b, []byte("Exif\x00\x00II*\x00"))
	if i < 0 || i > 64 {
		return 1
	}
	ifd := b[i+6:]
	if len(ifd) < 8 {
		return 1
	}
	off := int(binary.LittleEndian.Uint32(ifd[4:8]))
	if off < 8 || off+12 > len(ifd) || binary.LittleEndian.Uint16(ifd[off+2:]) != 0x0112 {
		return 1
	}
	switch o := int(binary.LittleEndian.Uint16(ifd[off+10:])); o {
	case 3, 6, 8:
		return o
	}
	return 1
}

// display applies an EXIF orientation the way a viewer does.
func display(img image.Image, o int) *fimg {
	b := img.Bounds()
	f := newFimg(b.Dx(), b.Dy())
	for y := 0; y < f.h; y++ {
		for x := 0; x < f.w; x++ {
			r, g, bb, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			i := (y*f.w + x) * 3
			f.pix[i], f.pix[i+1], f.pix[i+2] = float32(r>>8), float32(g>>8), float32(bb>>8)
		}
	}
	switch o {
	case 3:
		return rotate180(f)
	case 6:
		return rotateCW(f)
	case 8:
		return rotateCCW(f)
	}
	return f
}
