package cli

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/server/webhook"
)

func TestKeysWebhookIdentity(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "identity")
	code, out, errOut := runCLI(t, "", "keys", "webhook-identity", "--dir", dir, "--valid", "48h")
	require.Equal(t, ExitOK, code, errOut)
	assert.Len(t, strings.Fields(out), 3, "the three paths")

	id, err := webhook.LoadIdentity(filepath.Join(dir, webhook.ClientCertFile), filepath.Join(dir, webhook.ClientKeyFile), filepath.Join(dir, webhook.ClientCAFile))
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(id.Cert.Certificate[0])
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now().Add(48*time.Hour), leaf.NotAfter, time.Hour)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(id.CAPEM))
	_, err = leaf.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	assert.NoError(t, err, "the CA handed to receivers verifies the client certificate")
	st, err := os.Stat(filepath.Join(dir, webhook.ClientKeyFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "the key is the owner's only")

	// A second run never replaces an identity receivers may have pinned.
	before, _ := os.ReadFile(filepath.Join(dir, webhook.ClientCAFile))
	code, _, errOut = runCLI(t, "", "keys", "webhook-identity", "--dir", dir)
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, "exists")
	after, _ := os.ReadFile(filepath.Join(dir, webhook.ClientCAFile))
	assert.Equal(t, before, after)

	code, _, _ = runCLI(t, "", "keys", "webhook-identity")
	assert.Equal(t, ExitBadInput, code, "--dir is required")
}
