package server

import (
	"fmt"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestLimiterMemoryIsBounded(t *testing.T) {
	l := newLimiter(1, 20, time.Now)
	for i := range 200_000 {
		l.charge(fmt.Sprintf("ip:%d", i))
	}
	assert.LessOrEqual(t, l.size(), limiterShards*shardCap)
	// A key in use stays: it is moved to the front on each use.
	for range 20 {
		l.charge("ip:hot")
	}
	for i := range 500 {
		l.charge(fmt.Sprintf("x:%d", i))
	}
	ok, _ := l.open("ip:hot")
	assert.False(t, ok)
}

func TestCallerAddr(t *testing.T) {
	s := &Server{cfg: Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}}}
	for _, c := range []struct {
		remote, xff, want string
	}{
		{"198.51.100.1:443", "", "198.51.100.1"},
		{"198.51.100.1:443", "203.0.113.5", "198.51.100.1"}, // not a trusted proxy: header ignored
		{"10.1.2.3:443", "203.0.113.5", "203.0.113.5"},
		{"10.1.2.3:443", "1.1.1.1, 203.0.113.5", "203.0.113.5"},     // the left-most hop is the client's claim
		{"10.1.2.3:443", "203.0.113.5, 10.9.9.9", "203.0.113.5"},    // a chain of trusted proxies
		{"10.1.2.3:443", "garbage, 203.0.113.5", "203.0.113.5"},     //
		{"10.1.2.3:443", "203.0.113.5, garbage", "10.1.2.3"},        // a garbled hop next to us: trust nothing beyond
		{"[2001:db8:a:b:c:d:e:f]:443", "", "2001:db8:a:b::/64"},     // IPv6 by /64
		{"[::ffff:198.51.100.9]:443", "", "198.51.100.9"},           // mapped IPv4
		{"[fd00::1]:443", "2001:db8:1:2:3::4", "2001:db8:1:2::/64"}, //
		{"10.1.2.3:443", "[2001:db8:1:2:3::4]:5555", "2001:db8:1:2::/64"},
	} {
		r := httptest.NewRequest("POST", "/oauth/token", nil)
		r.RemoteAddr = c.remote
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		assert.Equal(t, c.want, s.callerAddr(r), "%s %s", c.remote, c.xff)
	}
}
