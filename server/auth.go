package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/crypto/argon2"
)

// Token types (the typ claim).
const (
	tokenAccess  = "access"
	tokenRefresh = "refresh"
	issuer       = "tambua"
)

// AccessTokenTTL is the lifetime of access tokens (expires_in).
const AccessTokenTTL = time.Hour

// ClientRefreshTTL is the lifetime of the refresh tokens returned by
// generateAccessToken. A workflow refresh token works while it is the one
// stored with its Active workflow, until its optional lifetime ends
// (Admin.RotateRefreshToken).
const ClientRefreshTTL = 30 * 24 * time.Hour

// Claims of the server's JWTs. Subject is the client_id.
type Claims struct {
	jwt.RegisteredClaims
	Type string `json:"typ"`
	Org  int64  `json:"org"`
	// Workflow scopes a token to one workflow: refresh tokens stored with
	// a workflow, and the access tokens they mint (the SDK's).
	Workflow string `json:"wf,omitempty"`
	// Session marks an SDK session (sdksession.go): its refresh token
	// and the access tokens it mints. Gen ties a session to the
	// workflow refresh token it was issued under, so rotating or
	// archiving the workflow ends its sessions too.
	Session string `json:"ses,omitempty"`
	Gen     string `json:"gen,omitempty"`
	// Handoff marks the phone session a hand-off code (handoff.go, whose
	// id is the code's jti) opened: its verification is stored under the
	// hand-off's request_id. Config is the document type a hand-off code
	// carries to the phone's SDK token.
	Handoff string `json:"ho,omitempty"`
	Config  string `json:"cfg,omitempty"`
}

// Keys are the server's secrets, created on first start and kept in the
// store so tokens and file URLs survive a restart.
type Keys struct {
	Token []byte // HMAC key of the JWTs (HS256)
	Files []byte // HMAC key of the signed file URLs
}

// LoadKeys returns the stored keys, creating them on first use.
func LoadKeys(ctx context.Context, st Store) (Keys, error) {
	gen := func() ([]byte, error) {
		b := make([]byte, 32)
		_, err := rand.Read(b)
		return b, err
	}
	var k Keys
	var err error
	if k.Token, err = st.Setting(ctx, "jwt_hs256_key", gen); err != nil {
		return k, fmt.Errorf("server: token key: %w", err)
	}
	if k.Files, err = st.Setting(ctx, "files_hmac_key", gen); err != nil {
		return k, fmt.Errorf("server: files key: %w", err)
	}
	return k, nil
}

// tokens mints and parses JWTs.
type tokens struct {
	key []byte
	now func() time.Time
}

func (t tokens) sign(c Claims) (string, error) {
	c.Issuer = issuer
	if c.IssuedAt == nil {
		c.IssuedAt = jwt.NewNumericDate(t.now())
	}
	if c.ID == "" {
		c.ID = randomToken(12)
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(t.key)
}

func (t tokens) access(clientID string, org int64, workflow string) (string, error) {
	now := t.now()
	return t.sign(Claims{
		RegisteredClaims: jwt.RegisteredClaims{Subject: clientID, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(AccessTokenTTL))},
		Type:             tokenAccess, Org: org, Workflow: workflow,
	})
}

func (t tokens) clientRefresh(clientID string, org int64) (string, error) {
	now := t.now()
	return t.sign(Claims{
		RegisteredClaims: jwt.RegisteredClaims{Subject: clientID, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(ClientRefreshTTL))},
		Type:             tokenRefresh, Org: org,
	})
}

// workflowRefresh mints a workflow's refresh token; ttl > 0 gives it an
// exp claim, zero none.
func (t tokens) workflowRefresh(clientID string, org int64, workflow string, ttl time.Duration) (string, error) {
	c := Claims{RegisteredClaims: jwt.RegisteredClaims{Subject: clientID}, Type: tokenRefresh, Org: org, Workflow: workflow}
	if ttl > 0 {
		now := t.now()
		c.IssuedAt, c.ExpiresAt = jwt.NewNumericDate(now), jwt.NewNumericDate(now.Add(ttl))
	}
	return t.sign(c)
}

// errToken is the one message for every bad token, so a caller learns
// nothing about why it was refused.
var errToken = errors.New("invalid or expired token")

// parse verifies signature, algorithm, issuer, expiry and type. Only HS256
// is accepted: "none" and any other algorithm are refused.
func (t tokens) parse(raw, typ string) (*Claims, error) {
	opts := []jwt.ParserOption{
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(issuer),
		jwt.WithTimeFunc(t.now),
		jwt.WithIssuedAt(),
	}
	if typ == tokenAccess || typ == tokenHandoff {
		opts = append(opts, jwt.WithExpirationRequired())
	}
	var c Claims
	tok, err := jwt.ParseWithClaims(raw, &c, func(*jwt.Token) (any, error) { return t.key, nil }, opts...)
	if err != nil || !tok.Valid || c.Type != typ || c.Subject == "" || c.Org <= 0 {
		return nil, errToken
	}
	return &c, nil
}

// Principal is the authenticated caller of a request.
type Principal struct {
	ClientID       string
	OrganisationID int64
	// WorkflowID is set for tokens scoped to one workflow (the SDK's).
	WorkflowID string
	// Session is the SDK session of the token, when it has one.
	Session string
	// Handoff is the hand-off that opened the session, when one did.
	Handoff string
}

// authenticate checks the Authorization header and the client behind the
// token (it must still exist and be active).
func (s *Server) authenticate(r *http.Request) (*Principal, *APIError) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return nil, apiErr(CodeUnauthorized, "missing Authorization header: send Bearer <ACCESS_TOKEN>")
	}
	scheme, raw, ok := strings.Cut(h, " ")
	raw = strings.TrimSpace(raw)
	if !ok || !strings.EqualFold(scheme, "Bearer") || raw == "" || strings.ContainsAny(raw, " \t") {
		return nil, apiErr(CodeUnauthorized, "malformed Authorization header: send Bearer <ACCESS_TOKEN>")
	}
	c, err := s.tokens.parse(raw, tokenAccess)
	if err != nil {
		return nil, apiErr(CodeUnauthorized, "%s", err)
	}
	cl, err := s.store.Client(r.Context(), c.Subject)
	if err != nil || !cl.Active || cl.OrganisationID != c.Org {
		return nil, apiErr(CodeUnauthorized, "%s", errToken)
	}
	return &Principal{ClientID: c.Subject, OrganisationID: c.Org, WorkflowID: c.Workflow, Session: c.Session, Handoff: c.Handoff}, nil
}

// Argon2id parameters: OWASP's baseline (19 MiB, 2 passes, 1 lane), a hash
// in tens of milliseconds, with token endpoints rate-limited per client.
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
)

// HashSecret returns the PHC string of an argon2id hash of secret.
func HashSecret(secret string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(secret), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// CheckSecret reports whether secret matches the PHC hash, in constant time.
func CheckSecret(hash, secret string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var v int
	var m uint32
	var t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil || m == 0 || m > 1<<20 || t == 0 || t > 16 || p == 0 {
		return false
	}
	b64 := base64.RawStdEncoding
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 || len(want) > 128 {
		return false
	}
	got := argon2.IDKey([]byte(secret), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// dummyHash is checked against when the client does not exist, so that the
// time taken does not tell unknown clients from wrong secrets.
var dummyHash, _ = HashSecret("tambua-dummy-secret")

// randomToken returns n random bytes, base64url without padding.
func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// NewClientSecret returns a fresh client secret (256 bits).
func NewClientSecret() string { return randomToken(32) }
