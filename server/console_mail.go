package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tambua/tambua/server/webhook"
)

// Mailbox is the console's mail when no SMTP server is configured: every
// message is written as one file in a folder (DATA/mailbox under tambua
// serve) and its file name is logged, so a new user of `make run` can
// read their sign-up code. Recipients and bodies are not logged: an
// address is personal data and a code is a secret.
type Mailbox struct {
	Dir string
	Log *slog.Logger
}

var _ webhook.Mailer = (*Mailbox)(nil)

// Send writes m to a new file in the folder, readable by the owner only.
func (b *Mailbox) Send(_ context.Context, m webhook.Mail) error {
	if err := os.MkdirAll(b.Dir, 0o700); err != nil {
		return fmt.Errorf("mailbox: %w", err)
	}
	if m.SentAt.IsZero() {
		m.SentAt = time.Now().UTC()
	}
	rnd := make([]byte, 4)
	_, _ = rand.Read(rnd)
	name := m.SentAt.UTC().Format("20060102T150405.000000000Z") + "-" + hex.EncodeToString(rnd) + ".eml"
	var sb strings.Builder
	fmt.Fprintf(&sb, "To: %s\r\nSubject: %s\r\nDate: %s\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s",
		strings.Join(m.To, ", "), m.Subject, m.SentAt.Format(time.RFC1123Z), m.Body)
	path := filepath.Join(b.Dir, name)
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		return fmt.Errorf("mailbox: %w", err)
	}
	if b.Log != nil {
		b.Log.Info("console mail written to the local mailbox (no SMTP server configured)", "file", path)
	}
	return nil
}
