package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tambua/tambua/checks/face"
	"github.com/tambua/tambua/internal/testkit/fixtures"
)

func testEnv(models string) (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
		if k == "TAMBUA_MODELS" {
			return models
		}
		return ""
	}}, &out, &errb
}

func TestFaceCompare(t *testing.T) {
	models := fixtures.Models(t)
	fixtures.Need(t, face.JohnsDir, "dlib johns photos")
	simm, _ := filepath.Glob(filepath.Join(face.JohnsDir, "John_Simm", "*.jpg"))
	savage, _ := filepath.Glob(filepath.Join(face.JohnsDir, "John_Savage", "*.jpg"))
	notImage := filepath.Join(t.TempDir(), "x.jpg")
	if err := os.WriteFile(notImage, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}

	env, out, errb := testEnv(models)
	if code := Run(context.Background(), env, []string{"face", "compare", simm[0], simm[1], savage[0]}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines: %s", len(lines), out)
	}
	for i, wantMatch := range []bool{true, false} {
		var l compareLine
		dec := json.NewDecoder(strings.NewReader(lines[i]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			t.Fatal(err)
		}
		if l.Match != wantMatch || l.Distance == nil || !l.AFaceFound || !l.BFaceFound || l.A != simm[0] {
			t.Errorf("line %d: %+v", i, l)
		}
	}

	for _, args := range [][]string{
		{"face", "compare", simm[0]},
		{"face", "compare", simm[0], notImage},
		{"face", "compare", simm[0], filepath.Join(t.TempDir(), "missing.jpg")},
		{"face", "compare", "-threshold", "0.99", simm[0], simm[1]},
	} {
		env, _, errb := testEnv(models)
		if code := Run(context.Background(), env, args); code != ExitBadInput {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, ExitBadInput, errb)
		}
	}
}
