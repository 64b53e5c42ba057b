package idv_test

import (
	"image"
	"testing"

	"github.com/tambua/tambua/idv"
)

func TestKey(t *testing.T) {
	c := idv.NewCase(nil)
	if _, ok := idv.SelfieFaceRect.Get(c); ok {
		t.Fatal("a value before anything was set")
	}
	r := image.Rect(10, 20, 110, 140)
	idv.SelfieFaceRect.Set(c, r)
	if got, ok := idv.SelfieFaceRect.Get(c); !ok || got != r {
		t.Fatalf("Get = %v %v, want %v", got, ok, r)
	}
	// Two declarations of one name with different types do not confuse
	// each other: the reader gets "no value", never a wrong type.
	clash := idv.NewKey[string](idv.SelfieFaceRect.Name())
	if v, ok := clash.Get(c); ok || v != "" {
		t.Fatalf("a string read from a rectangle: %q %v", v, ok)
	}
}
