package synth

import (
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// DefaultFacesDir holds dlib's example face photos (five people, eleven
// photos each), installed with libdlib-dev.
const DefaultFacesDir = "/usr/share/doc/libdlib19.1/examples/johns"

// faceSet lists the people and their photos, sorted, so that a seed picks
// the same files on every machine with the same package.
type faceSet struct {
	dir    string
	people []string
	photos map[string][]string
	mu     sync.Mutex
	cache  map[string]*image.RGBA
}

func loadFaceSet(dir string) (*faceSet, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("synth: face photos (install libdlib-dev): %w", err)
	}
	fs := &faceSet{dir: dir, photos: map[string][]string{}, cache: map[string]*image.RGBA{}}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("synth: face photos: %w", err)
		}
		var list []string
		for _, f := range files {
			if strings.HasSuffix(strings.ToLower(f.Name()), ".jpg") {
				list = append(list, f.Name())
			}
		}
		if len(list) >= 2 {
			sort.Strings(list)
			fs.people = append(fs.people, e.Name())
			fs.photos[e.Name()] = list
		}
	}
	sort.Strings(fs.people)
	if len(fs.people) < 2 {
		return nil, fmt.Errorf("synth: face photos: %s needs at least two people with two photos each", dir)
	}
	return fs, nil
}

// sexOf is the sex of a person in the face set, so the card's sex and
// names agree with the face: the five dlib "johns" are men; people in other
// folders get one drawn.
func sexOf(personName string) string {
	if strings.HasPrefix(personName, "John_") {
		return "M"
	}
	return ""
}

// load decodes one photo once; callers must not modify the result.
func (fs *faceSet) load(personName, file string) (*image.RGBA, error) {
	key := personName + "/" + file
	fs.mu.Lock()
	img, ok := fs.cache[key]
	fs.mu.Unlock()
	if ok {
		return img, nil
	}
	f, err := os.Open(filepath.Join(fs.dir, personName, file))
	if err != nil {
		return nil, fmt.Errorf("synth: face photo: %w", err)
	}
	defer f.Close()
	src, err := jpeg.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("synth: face photo %s: %w", key, err)
	}
	img = image.NewRGBA(src.Bounds().Sub(src.Bounds().Min))
	draw.Draw(img, img.Bounds(), src, src.Bounds().Min, draw.Src)
	fs.mu.Lock()
	fs.cache[key] = img
	fs.mu.Unlock()
	return img, nil
}
