package webhook_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tambua/tambua/server/webhook"
)

func TestForbiddenReason(t *testing.T) {
	tests := []struct {
		ip   string
		want string
	}{
		{"127.0.0.1", "loopback"},
		{"127.9.9.9", "loopback"},
		{"::1", "loopback"},
		{"10.1.2.3", "private"},
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"192.168.1.1", "private"},
		{"fd12::1", "private"},
		{"169.254.1.1", "link-local"},
		{"169.254.169.254", "cloud metadata"},
		{"fe80::1", "link-local"},
		{"fd00:ec2::254", "cloud metadata"},
		{"100.64.0.1", "carrier-grade NAT"},
		{"100.127.255.254", "carrier-grade NAT"},
		{"0.0.0.0", "unspecified"},
		{"::", "unspecified"},
		{"::ffff:127.0.0.1", "loopback"},
		{"::ffff:10.0.0.1", "private"},
		{"64:ff9b::a9fe:a9fe", "cloud metadata"},
		{"224.0.0.1", "link-local"},
		{"239.1.2.3", "multicast"},
		{"255.255.255.255", "broadcast"},
		{"::7f00:1", "IPv4-compatible (deprecated)"},
		{"::a9fe:a9fe", "IPv4-compatible (deprecated)"},
		{"::808:808", "IPv4-compatible (deprecated)"},
		{"2002:7f00:1::1", "6to4"},
		{"2002:808:808::1", "6to4"},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"},
		{"64:ff9b:1::a00:1", "local-use NAT64"},
		{"fec0::1", "site-local (deprecated)"},
		{"3fff::1", "documentation"},
		{"8.8.8.8", ""},
		{"100.128.0.1", ""},
		{"172.32.0.1", ""},
		{"2606:4700:4700::1111", ""},
	}
	for _, tc := range tests {
		t.Run(tc.ip, func(t *testing.T) {
			assert.Equal(t, tc.want, webhook.ForbiddenReason(netip.MustParseAddr(tc.ip)))
		})
	}
}

// fakeDNS answers from a table, as a resolver under an attacker's control
// would.
func fakeDNS(table map[string]string) func(ctx context.Context, network, host string) ([]net.IP, error) {
	return func(_ context.Context, _, host string) ([]net.IP, error) {
		if a, ok := table[host]; ok {
			return []net.IP{net.ParseIP(a)}, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
}

func TestCheckURL(t *testing.T) {
	g := &webhook.Guard{LookupIP: fakeDNS(map[string]string{
		"hooks.example.com":   "93.184.216.34",
		"evil.example.com":    "127.0.0.1",
		"meta.example.com":    "169.254.169.254",
		"cgnat.example.com":   "100.64.3.4",
		"private.example.com": "192.168.0.10",
	})}
	tests := []struct {
		url       string
		forbidden bool
		errPart   string
	}{
		{url: "https://hooks.example.com/in"},
		{url: "https://evil.example.com/in", forbidden: true},
		{url: "https://meta.example.com/latest", forbidden: true},
		{url: "https://cgnat.example.com/", forbidden: true},
		{url: "https://private.example.com/", forbidden: true},
		{url: "https://127.0.0.1:8443/", forbidden: true},
		{url: "https://[::1]/", forbidden: true},
		{url: "https://169.254.169.254/", forbidden: true},
		{url: "http://hooks.example.com/", errPart: "https"},
		{url: "https://user:pw@hooks.example.com/", errPart: "credentials"},
		{url: "https:///nohost", errPart: "no host"},
		{url: "https://unknown.example.com/", errPart: "resolving"},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			err := g.CheckURL(context.Background(), tc.url)
			switch {
			case tc.forbidden:
				require.ErrorIs(t, err, webhook.ErrForbiddenAddress)
			case tc.errPart != "":
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.errPart)
			default:
				require.NoError(t, err)
			}
		})
	}
	// The development switch lifts the address rules, not the https rule.
	dev := &webhook.Guard{AllowPrivate: true}
	require.NoError(t, dev.CheckURL(context.Background(), "https://127.0.0.1:8443/"))
	require.Error(t, dev.CheckURL(context.Background(), "http://127.0.0.1:8443/"))
}

// TestCheckURLRealResolver: localhost resolves to 127.0.0.1 through the
// system resolver and is refused.
func TestCheckURLRealResolver(t *testing.T) {
	err := (&webhook.Guard{}).CheckURL(context.Background(), "https://localhost:9443/hook")
	require.ErrorIs(t, err, webhook.ErrForbiddenAddress)
}

// TestRefusedAtConnectTime: the address check runs again on the address
// being dialled, so a name that passed validation (DNS said public) but
// now resolves to loopback (DNS rebinding) is refused before any byte is
// sent, and the refusal is not retried.
func TestRefusedAtConnectTime(t *testing.T) {
	rc := newReceiver(t, always(200))
	port := rc.Listener.Addr().(*net.TCPAddr).Port
	g := &webhook.Guard{LookupIP: fakeDNS(map[string]string{"localhost": "93.184.216.34"})}
	for _, host := range []string{"localhost", "127.0.0.1"} {
		u := "https://" + net.JoinHostPort(host, itoa(port)) + "/hook"
		if host == "localhost" {
			require.NoError(t, g.CheckURL(context.Background(), u), "validation saw the public answer")
		}
		s := webhook.NewSender(identity(t), g)
		a := s.Do(context.Background(), webhook.Request{URL: u, CAPEM: rc.CAPEM, Event: "x", Body: []byte("{}")})
		assert.Equal(t, webhook.KindRefused, a.Kind, host)
		assert.False(t, a.Retryable())
		var ae *webhook.AddressError
		require.True(t, errors.As(a.Err, &ae), "%v", a.Err)
		assert.Equal(t, "loopback", ae.Reason)
	}
	assert.Empty(t, rc.requests())
}

func TestSendTestOutcomes(t *testing.T) {
	ok := newReceiver(t, always(200))
	bad := newReceiver(t, always(500))
	slow := newReceiver(t, always(200))
	slow.delay = 500 * time.Millisecond
	otherCA, _, _, err := webhook.GenerateClientIdentity("unrelated", time.Now(), time.Hour)
	require.NoError(t, err)
	// A receiver that trusts a different client CA rejects the service's
	// certificate.
	strict := newReceiver(t, always(200))
	strict.TLS.ClientCAs = poolOf(t, otherCA)

	tests := []struct {
		name  string
		rc    *receiver
		ca    string
		want  string
		code  int
		saw   int
		check func(t *testing.T, r got)
	}{
		{name: "success", rc: ok, want: webhook.KindSuccess, code: 200, saw: 1, check: func(t *testing.T, r got) {
			var env map[string]any
			require.NoError(t, jsonUnmarshal(r.Body, &env))
			assert.Equal(t, true, env["test"])
			assert.Equal(t, "verification.completed", env["event"])
			assert.True(t, strings.HasPrefix(env["event_id"].(string), "test_"))
			assert.IsType(t, map[string]any{}, env["data"])
			assert.NotEmpty(t, env["timestamp"])
			require.NoError(t, webhook.Verify("k", r.Body, r.Header.Get("X-Service-Signature")))
		}},
		{name: "http error", rc: bad, want: webhook.KindHTTPError, code: 500, saw: 1},
		{name: "tls failure: unknown server CA", rc: ok, ca: string(otherCA), want: webhook.KindTLS},
		{name: "tls failure: client certificate refused", rc: strict, want: webhook.KindTLS},
		{name: "timeout", rc: slow, want: webhook.KindTimeout, saw: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(tc.rc.requests())
			s := webhook.NewSender(identity(t), &webhook.Guard{AllowPrivate: true})
			s.Timeout = 200 * time.Millisecond // the 30 s of production, shortened
			ca := tc.rc.CAPEM
			if tc.ca != "" {
				ca = tc.ca
			}
			w := webhook.Webhook{ID: "wh_t", OrganisationID: 7, URL: tc.rc.URL, Method: "PUT", CACertificate: ca, Secret: "k"}
			res, err := s.SendTest(context.Background(), w, webhook.EventVerificationCompleted, time.Now())
			require.NoError(t, err)
			assert.Equal(t, tc.want, res.Outcome, res.Error)
			assert.Equal(t, tc.want == webhook.KindSuccess, res.Success)
			assert.Equal(t, tc.code, res.ResponseCode)
			reqs := tc.rc.requests()[before:]
			assert.Len(t, reqs, tc.saw)
			if tc.check != nil && len(reqs) > 0 {
				assert.Equal(t, "PUT", reqs[0].Method)
				tc.check(t, reqs[0])
			}
		})
	}
	_, err = webhook.NewSender(identity(t), nil).SendTest(context.Background(), webhook.Webhook{}, "no.such.event", time.Now())
	require.Error(t, err)
}
