package vision_test

import (
	"errors"
	"fmt"

	"github.com/tambua/tambua/vision"
)

func ExampleDecode() {
	_, err := vision.Decode([]byte("%PDF-1.7 a document, not a photo"))
	fmt.Println(errors.Is(err, vision.ErrNotImage), err)
	// Output: true vision: not a JPEG or PNG image
}
