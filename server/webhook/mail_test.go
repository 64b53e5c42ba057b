package webhook_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tambua/tambua/server/webhook"
)

// smtpSink is a minimal SMTP server that records one conversation's
// envelope and message.
type smtpSink struct {
	ln   net.Listener
	mu   sync.Mutex
	from string
	to   []string
	data string
	done chan struct{}
}

func newSMTPSink(t *testing.T) *smtpSink {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &smtpSink{ln: ln, done: make(chan struct{})}
	t.Cleanup(func() { ln.Close() })
	go s.serve()
	return s
}

func (s *smtpSink) serve() {
	c, err := s.ln.Accept()
	if err != nil {
		return
	}
	defer c.Close()
	defer close(s.done)
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	say := func(line string) { _, _ = c.Write([]byte(line + "\r\n")) }
	say("220 sink ESMTP")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.ToUpper(strings.TrimSpace(line))
		switch {
		case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
			say("250-sink")
			say("250 8BITMIME")
		case strings.HasPrefix(cmd, "MAIL FROM:"):
			s.mu.Lock()
			addr, _, _ := strings.Cut(strings.TrimSpace(line)[10:], ">")
			s.from = strings.Trim(addr, "<> ")
			s.mu.Unlock()
			say("250 ok")
		case strings.HasPrefix(cmd, "RCPT TO:"):
			s.mu.Lock()
			addr, _, _ := strings.Cut(strings.TrimSpace(line)[8:], ">")
			s.to = append(s.to, strings.Trim(addr, "<> "))
			s.mu.Unlock()
			say("250 ok")
		case cmd == "DATA":
			say("354 go on")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				b.WriteString(l)
			}
			s.mu.Lock()
			s.data = b.String()
			s.mu.Unlock()
			say("250 queued")
		case cmd == "QUIT":
			say("221 bye")
			return
		case cmd == "RSET", cmd == "NOOP":
			say("250 ok")
		default:
			say("502 not implemented")
		}
	}
}

func TestSMTPMailer(t *testing.T) {
	sink := newSMTPSink(t)
	_, portText, _ := net.SplitHostPort(sink.ln.Addr().String())
	port, _ := strconv.Atoi(portText)
	m, err := webhook.NewSMTPMailer(webhook.SMTPConfig{Host: "127.0.0.1", Port: port, From: "tambua@example.com", TLS: "none"})
	require.NoError(t, err)
	require.NoError(t, m.Send(context.Background(), webhook.Mail{To: []string{"ops@example.com"}, Subject: "Webhook paused", Body: "Resume it."}))
	<-sink.done
	sink.mu.Lock()
	defer sink.mu.Unlock()
	assert.Equal(t, "tambua@example.com", sink.from)
	assert.Equal(t, []string{"ops@example.com"}, sink.to)
	assert.Contains(t, sink.data, "Subject: Webhook paused")
	assert.Contains(t, sink.data, "Resume it.")

	_, err = webhook.NewSMTPMailer(webhook.SMTPConfig{Host: "127.0.0.1"})
	assert.Error(t, err, "a from address is required")
}

func TestDevMailerRecordsToFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mail.jsonl")
	d := &webhook.DevMailer{Path: path}
	for i := range 2 {
		require.NoError(t, d.Send(context.Background(), webhook.Mail{To: []string{"a@example.com"}, Subject: "s" + strconv.Itoa(i), Body: "b"}))
	}
	assert.Len(t, d.Sent(), 2)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	require.Len(t, lines, 2)
	var m webhook.Mail
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &m))
	assert.Equal(t, "s1", m.Subject)
}
