package cli

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// mtlsReceiver starts a local HTTPS receiver that, like a customer's
// webhook endpoint, demands a client certificate issued by caPEM (the
// server's webhook identity). It returns the receiver and its own
// certificate as PEM, which the webhook under test must trust.
func mtlsReceiver(t *testing.T, caPEM []byte, h http.HandlerFunc) (*httptest.Server, string) {
	t.Helper()
	rc := httptest.NewUnstartedServer(h)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	rc.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	rc.Config.ErrorLog = log.New(io.Discard, "", 0)
	rc.StartTLS()
	t.Cleanup(rc.Close)
	return rc, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.Certificate().Raw}))
}

// headlessChrome starts the Chromium at chrome headless in a 1280x900
// window and returns a browser context that ends with the test or after
// limit, a hang guard rather than a timing (the machine may be shared).
func headlessChrome(t *testing.T, chrome string, limit time.Duration) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chrome), chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, limit)
	t.Cleanup(func() { cancelT(); cancel(); cancelA() })
	return ctx
}
