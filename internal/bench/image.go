package bench

import (
	"fmt"
	"image"
	_ "image/jpeg" // the specimen images
	_ "image/png"
	"os"

	_ "golang.org/x/image/tiff" // the MRZ line crops
)

// DecodeFile decodes an image file of the test data as it is stored: no
// EXIF turn and none of the size limits vision.Decode puts on captures.
// Errors name the file.
func DecodeFile(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return img, nil
}
