package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/internal/testkit/synth"
)

func main() {
	seed, _ := strconv.ParseUint(os.Args[1], 10, 64)
	v := synth.Variant(os.Args[2])
	out := os.Args[3]
	reg := docdefs.Default()
	gen, err := synth.New(synth.Options{Definitions: reg.All(), Seed: seed, Difficulty: synth.Medium, ImpostorRate: -1, Variant: v})
	if err != nil {
		panic(err)
	}
	for _, a := range os.Args[4:] {
		i, _ := strconv.Atoi(a)
		s, err := gen.Sample(context.Background(), i)
		if err != nil {
			panic(err)
		}
		d := filepath.Join(out, fmt.Sprintf("%d-%s", i, s.Truth.Config))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "front.jpg"), s.Front, 0o644)
		if len(s.Back) > 0 {
			os.WriteFile(filepath.Join(d, "back.jpg"), s.Back, 0o644)
		}
		fmt.Println(d)
	}
}
