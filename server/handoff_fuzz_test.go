package server

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// FuzzHandoffToken drives the two readers of hand-off tokens, which take
// them from outside (redeemHandoff from any caller, getHandoffStatus from
// a session): whatever the input, they accept only tokens this key
// signed, of the hand-off type, with the claims it signed; parseSigned
// also takes them after their lifetime, parse does not.
func FuzzHandoffToken(f *testing.F) {
	now := func() time.Time { return time.Unix(1_800_000_000, 0) }
	tk := tokens{key: bytes.Repeat([]byte{7}, 32), now: now}
	mk := func(id string, exp time.Duration, typ string) string {
		s, _ := tk.sign(Claims{RegisteredClaims: jwt.RegisteredClaims{Subject: "client-1", ID: id, ExpiresAt: jwt.NewNumericDate(now().Add(exp))},
			Type: typ, Org: 1, Workflow: "wf-1", Session: "ses-1", Gen: "g"})
		return s
	}
	live, old, access := mk("a", time.Minute, tokenHandoff), mk("b", -time.Minute, tokenHandoff), mk("c", time.Minute, tokenAccess)
	signed := map[string]bool{live: true, old: true}
	for _, s := range []string{live, old, access, "a.b.c", "", "eyJhbGciOiJub25lIn0.eyJ0eXAiOiJoYW5kb2ZmIn0."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		c1, err1 := tk.parse(raw, tokenHandoff)
		c2, err2 := tk.parseSigned(raw, tokenHandoff)
		for _, c := range []*Claims{c1, c2} {
			if c == nil {
				continue
			}
			i := strings.LastIndexByte(raw, '.')
			ok := false
			for s := range signed {
				if raw[:i] == s[:strings.LastIndexByte(s, '.')] {
					ok = true
				}
			}
			if !ok || c.Type != tokenHandoff || c.Org != 1 || c.ID == "" {
				t.Fatalf("accepted a hand-off token the server did not sign: %q", raw)
			}
		}
		if err1 == nil && err2 != nil {
			t.Fatalf("parse took what parseSigned refused: %q", raw)
		}
		if err1 == nil && c1.ExpiresAt.Before(now()) {
			t.Fatalf("parse took an expired hand-off token: %q", raw)
		}
	})
}
