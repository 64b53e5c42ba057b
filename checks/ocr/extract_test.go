package ocr

import "testing"

func TestReconcile(t *testing.T) {
	cases := []struct{ reread, page, want string }{
		{"ANNAMARIA", "ANNA MARIA", "ANNA MARIA"},                // the line's spaces
		{"BUNDESDRUCKERE", "BUNDESDRUCKEREI", "BUNDESDRUCKEREI"}, // a narrow last glyph trimmed
		{"MAKUENI", "MAKUENI A", "MAKUENI"},                      // a word the re-read left out
		{"S-I KIKUYU", "KIKUYU", "KIKUYU"},                       // a caption's end in the padding
		{"JOHN SMITH A", "JOHN SMITH", "JOHN SMITH"},             // artwork after the value
		{"OTIENO", "OTIEMO", "OTIENO"},
		{"P", "PP", "P"}, // a one-letter value is whole                           // a letter read otherwise
	}
	for _, tc := range cases {
		r := fieldRead{value: tc.reread, valid: true}
		reconcile(&r, tc.page)
		if r.value != tc.want {
			t.Errorf("reconcile(%q, page %q) = %q, want %q", tc.reread, tc.page, r.value, tc.want)
		}
	}
}
