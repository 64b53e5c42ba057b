package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Mail is one notification.
type Mail struct {
	To      []string  `json:"to"`
	Subject string    `json:"subject"`
	Body    string    `json:"body"`
	SentAt  time.Time `json:"sent_at"`
}

// Mailer sends notifications.
type Mailer interface {
	Send(ctx context.Context, m Mail) error
}

// SMTPConfig configures the SMTP mailer.
type SMTPConfig struct {
	Host     string
	Port     int
	Username string
	Password string
	From     string
	// TLS: "starttls" (default, required), "tls" (implicit, port 465) or
	// "none" (development relays only).
	TLS string
}

// SMTPMailer sends mail through an SMTP server.
type SMTPMailer struct{ cfg SMTPConfig }

// NewSMTPMailer returns an SMTP mailer.
func NewSMTPMailer(cfg SMTPConfig) (*SMTPMailer, error) {
	if cfg.Host == "" || cfg.From == "" {
		return nil, fmt.Errorf("webhook: SMTP host and from address are required")
	}
	if cfg.Port == 0 {
		cfg.Port = 587
	}
	return &SMTPMailer{cfg: cfg}, nil
}

// Send delivers m.
func (s *SMTPMailer) Send(ctx context.Context, m Mail) error {
	msg := gomail.NewMsg()
	if err := msg.From(s.cfg.From); err != nil {
		return fmt.Errorf("webhook: mail from: %w", err)
	}
	if err := msg.To(m.To...); err != nil {
		return fmt.Errorf("webhook: mail to: %w", err)
	}
	msg.Subject(m.Subject)
	msg.SetBodyString(gomail.TypeTextPlain, m.Body)
	opts := []gomail.Option{gomail.WithPort(s.cfg.Port), gomail.WithTimeout(30 * time.Second)}
	switch s.cfg.TLS {
	case "tls":
		opts = append(opts, gomail.WithSSL())
	case "none":
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if s.cfg.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthPlain), gomail.WithUsername(s.cfg.Username), gomail.WithPassword(s.cfg.Password))
	}
	c, err := gomail.NewClient(s.cfg.Host, opts...)
	if err != nil {
		return fmt.Errorf("webhook: smtp client: %w", err)
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("webhook: smtp send: %w", err)
	}
	return nil
}

// DevMailer records mail instead of sending it: in memory, and as JSON
// lines in a file when Path is set (DIR/mail.jsonl under tambua serve).
type DevMailer struct {
	Path string
	mu   sync.Mutex
	sent []Mail
}

// Send records m.
func (d *DevMailer) Send(_ context.Context, m Mail) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if m.SentAt.IsZero() {
		m.SentAt = time.Now().UTC()
	}
	d.sent = append(d.sent, m)
	if d.Path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(d.Path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(d.Path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	line, err := json.Marshal(m)
	if err != nil {
		f.Close()
		return err
	}
	_, err = f.Write(append(line, '\n'))
	return errors.Join(err, f.Close())
}

// Sent returns the recorded mail.
func (d *DevMailer) Sent() []Mail {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Mail(nil), d.sent...)
}
