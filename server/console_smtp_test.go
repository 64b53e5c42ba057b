package server_test

import (
	"bufio"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/server"
	"github.com/tambua/tambua/server/webhook"
)

// smtpInbox is an SMTP server on loopback that keeps every message it is
// given, one conversation per connection, as a mail server would.
type smtpInbox struct {
	ln   net.Listener
	msgs chan string
}

func newSMTPInbox(t *testing.T) *smtpInbox {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	in := &smtpInbox{ln: ln, msgs: make(chan string, 16)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go in.converse(c)
		}
	}()
	return in
}

func (in *smtpInbox) converse(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	say := func(line string) { _, _ = c.Write([]byte(line + "\r\n")) }
	say("220 inbox ESMTP")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		switch cmd := strings.ToUpper(strings.TrimSpace(line)); {
		case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
			say("250-inbox")
			say("250 8BITMIME")
		case strings.HasPrefix(cmd, "MAIL FROM:"), strings.HasPrefix(cmd, "RCPT TO:"), cmd == "RSET", cmd == "NOOP":
			say("250 ok")
		case cmd == "DATA":
			say("354 go on")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil || l == ".\r\n" {
					break
				}
				b.WriteString(l)
			}
			in.msgs <- b.String()
			say("250 queued")
		case cmd == "QUIT":
			say("221 bye")
			return
		default:
			say("502 not implemented")
		}
	}
}

// TestConsoleSignupOverSMTP: with an SMTP server configured, the sign-up
// code goes out through github.com/wneessen/go-mail to a real SMTP
// listener, and the code read from that message creates the account.
func TestConsoleSignupOverSMTP(t *testing.T) {
	inbox := newSMTPInbox(t)
	_, port, _ := net.SplitHostPort(inbox.ln.Addr().String())
	p, _ := strconv.Atoi(port)
	mailer, err := webhook.NewSMTPMailer(webhook.SMTPConfig{Host: "127.0.0.1", Port: p, From: "console@tambua.example", TLS: "none"})
	require.NoError(t, err)
	e := newEnvWith(t, func(c *server.Config) { c.Mailer = mailer })
	ce := &consoleEnv{env: e}
	m := ce.browser()
	r := m.call("POST", "/console/api/signup/code", map[string]string{"email": "ada@example.com"})
	require.Equal(t, http.StatusAccepted, r.status, string(r.body))
	var msg string
	select {
	case msg = <-inbox.msgs:
	case <-time.After(20 * time.Second):
		t.Fatal("no mail reached the SMTP server")
	}
	assert.Contains(t, msg, "To: <ada@example.com>")
	code := regexp.MustCompile(`code is (\d{6})\b`).FindStringSubmatch(msg)
	require.NotNil(t, code, msg)
	r = m.call("POST", "/console/api/signup", server.SignupInput{Email: "ada@example.com", Code: code[1], Name: "Ada",
		Password: "correct horse battery", Organisation: "Acme", MonthlyVolume: "under 1,000"})
	assert.Equal(t, http.StatusOK, r.status, string(r.body))
}
