package webhook_test

import (
	"context"
	"encoding/pem"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tambua/tambua/server/webhook"
)

func TestValidateCertificate(t *testing.T) {
	rc := newReceiver(t, always(200))
	strict := newReceiver(t, always(200))
	otherCA, _, _, err := webhook.GenerateClientIdentity("unrelated", time.Now(), time.Hour)
	require.NoError(t, err)
	strict.TLS.ClientCAs = poolOf(t, otherCA)
	expiredCA, _, _, err := webhook.GenerateClientIdentity("old", time.Now().AddDate(-2, 0, 0), 365*24*time.Hour)
	require.NoError(t, err)
	block, _ := pem.Decode([]byte(rc.CAPEM))
	der := string(block.Bytes)

	dev := webhook.NewSender(identity(t), &webhook.Guard{AllowPrivate: true})
	prod := webhook.NewSender(identity(t), &webhook.Guard{})
	tests := []struct {
		name      string
		s         *webhook.Sender
		url, ca   string
		valid     bool
		handshake bool
		problem   string
	}{
		{name: "valid", s: dev, url: rc.URL, ca: rc.CAPEM, valid: true, handshake: true},
		{name: "DER refused", s: dev, url: rc.URL, ca: der, problem: "DER"},
		{name: "not PEM", s: dev, url: rc.URL, ca: "hello", problem: "not PEM"},
		{name: "expired", s: dev, url: rc.URL, ca: string(expiredCA), problem: "expired"},
		{name: "wrong CA", s: dev, url: rc.URL, ca: string(otherCA), problem: "not signed by the uploaded CA"},
		{name: "client certificate refused", s: dev, url: strict.URL, ca: strict.CAPEM, problem: "TLS handshake"},
		{name: "loopback refused", s: prod, url: rc.URL, ca: rc.CAPEM, problem: "not publicly reachable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := tc.s.ValidateCertificate(context.Background(), tc.url, tc.ca, time.Now())
			assert.Equal(t, tc.valid, rep.Valid, "%+v", rep)
			assert.Equal(t, tc.handshake, rep.HandshakeOK, rep.Handshake)
			if tc.problem != "" {
				assert.Contains(t, strings.Join(rep.Problems, " | "), tc.problem)
			} else {
				assert.Empty(t, rep.Problems)
			}
			if tc.valid {
				require.Len(t, rep.Certificates, 1)
				assert.NotEmpty(t, rep.Certificates[0].FingerprintSHA256)
				assert.False(t, rep.Certificates[0].Expired)
				require.NotNil(t, rep.ServerCertificate)
			}
		})
	}
}
