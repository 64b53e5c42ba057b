package server

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"image/png"
	"log/slog"
	"math/big"
	"net/mail"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server/store"
	"github.com/tambua/tambua/server/webhook"
)

// Console accounts (docs/console.md): sign-up by a one-time email code,
// argon2id passwords, optional TOTP with recovery codes, 24 h sessions
// revoked at sign-out, lockout after repeated failures, member roles.

// Console account limits. Each is a choice documented in docs/console.md.
const (
	// SessionTTL is the console session lifetime (the spec: 24 hours).
	SessionTTL = 24 * time.Hour
	// emailCodeTTL: long enough to switch to a mail client, short enough
	// that a code read later from a mailbox is dead.
	emailCodeTTL = 15 * time.Minute
	// emailCodeAttempts: wrong guesses before a code dies; 5 guesses at a
	// 6-digit code is a 1 in 200,000 chance.
	emailCodeAttempts = 5
	// lockoutAfter failed sign-ins (password or second factor) lock the
	// account for lockoutFor (OWASP's advice: a few failures, minutes).
	lockoutAfter = 5
	lockoutFor   = 15 * time.Minute
	// mfaTTL: time between the password step and the code step.
	mfaTTL = 5 * time.Minute
	// minPassword follows NIST SP 800-63B's floor for user-chosen secrets
	// (8), raised to 10 for an account that spends money.
	minPassword = 10
	maxPassword = 256
	// recoveryCodes given at TOTP enrolment.
	recoveryCodes = 8
)

// Console account errors, worded for the person at the form.
var (
	ErrBadCredentials = errors.New("wrong email or password")
	ErrBadCode        = errors.New("wrong or expired code")
	ErrBadTOTP        = errors.New("wrong authentication code")
	ErrLocked         = errors.New("too many failed attempts: try again in 15 minutes")
	ErrEmailTaken     = errors.New("an account with this email already exists")
)

// Member is a console user as the API shows it.
type Member struct {
	ID          string    `json:"id"`
	Email       string    `json:"email"`
	Name        string    `json:"name"`
	Role        string    `json:"role"`
	TOTPEnabled bool      `json:"totp_enabled"`
	Invited     bool      `json:"invited"`
	CreatedAt   time.Time `json:"created_at"`
}

func memberOf(u store.User) Member {
	return Member{ID: u.ID, Email: u.Email, Name: u.Name, Role: u.Role, TOTPEnabled: u.TOTPEnabled,
		Invited: u.PasswordHash == "", CreatedAt: u.CreatedAt}
}

// Accounts holds the console's account operations.
type Accounts struct {
	st    store.Console
	admin *Admin
	mail  webhook.Mailer
	key   []byte // session and CSRF key
	seal  cipher.AEAD
	now   func() time.Time
	log   *slog.Logger
	// Issuer names the TOTP account in authenticator apps.
	Issuer string
	// locks serialise each account's read-check-write steps (wrong-guess
	// counters, lockout, the last TOTP step): without them concurrent
	// requests read the same count and each write it plus one, so a
	// guesser with many connections got more than the allowed tries and
	// a TOTP code could be accepted twice. In one process; across
	// replicas the sign-in rate limits, shared on PostgreSQL, bound it.
	locks *stripedLocks
}

// stripedLocks is a fixed set of mutexes picked by a key's hash: bounded
// memory whatever the number of accounts, at the price of unrelated
// accounts sometimes sharing a lock for the few milliseconds of a step.
type stripedLocks [64]sync.Mutex

func (l *stripedLocks) lock(key string) func() {
	h := fnv.New32a()
	h.Write([]byte(key))
	m := &l[h.Sum32()%uint32(len(l))]
	m.Lock()
	return m.Unlock
}

// newAccounts derives the session and sealing keys from the token key, so
// no new secret has to be stored.
func newAccounts(st store.Console, admin *Admin, mailer webhook.Mailer, tokenKey []byte, now func() time.Time, log *slog.Logger) *Accounts {
	derive := func(label string) []byte {
		m := hmac.New(sha256.New, tokenKey)
		m.Write([]byte("tambua console " + label))
		return m.Sum(nil)
	}
	block, _ := aes.NewCipher(derive("totp seal"))
	aead, _ := cipher.NewGCM(block)
	return &Accounts{st: st, admin: admin, mail: mailer, key: derive("session"), seal: aead, now: now, log: log, Issuer: "Tambua", locks: new(stripedLocks)}
}

// NormaliseEmail lower-cases and checks an email address; it returns ""
// for anything that is not one plain address.
func NormaliseEmail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 254 || s == "" {
		return ""
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s || !strings.Contains(s, "@") {
		return ""
	}
	return strings.ToLower(s)
}

// cleanText checks a one-line text field: at most max characters, valid
// UTF-8, no control characters. HTML is kept as text: templates escape it.
func cleanText(field, s string, min, max int) (string, error) {
	s = strings.TrimSpace(s)
	n := utf8.RuneCountInString(s)
	if !utf8.ValidString(s) || n < min || n > max {
		if min > 0 {
			return "", idv.Errorf(idv.EInvalid, "%s must have %d to %d characters", field, min, max)
		}
		return "", idv.Errorf(idv.EInvalid, "%s must have at most %d characters", field, max)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return "", idv.Errorf(idv.EInvalid, "%s must be one line of text", field)
		}
	}
	return s, nil
}

func (a *Accounts) codeHash(email, purpose, code string) string {
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte(purpose + "\x00" + email + "\x00" + code))
	return hex.EncodeToString(m.Sum(nil))
}

func sixDigits() string {
	n, _ := rand.Int(rand.Reader, big.NewInt(1_000_000))
	return fmt.Sprintf("%06d", n.Int64())
}

// SendCode mails a fresh one-time code for purpose to email. It answers
// the same whether or not the address has an account (sign-up refuses a
// taken address only at the second step), so it cannot be used to learn
// who has one.
func (a *Accounts) SendCode(ctx context.Context, email, purpose string) error {
	email = NormaliseEmail(email)
	if email == "" {
		return idv.Errorf(idv.EInvalid, "enter a valid email address")
	}
	code := sixDigits()
	if err := a.st.PutEmailCode(ctx, store.EmailCode{Email: email, Purpose: purpose, CodeHash: a.codeHash(email, purpose, code),
		ExpiresAt: a.now().Add(emailCodeTTL)}); err != nil {
		return err
	}
	subject, body := "Your Tambua verification code", fmt.Sprintf("Your Tambua verification code is %s.\n\nIt expires in %d minutes. If you did not ask for it, ignore this message.\n", code, int(emailCodeTTL.Minutes()))
	if purpose == "invite" {
		subject = "You are invited to a Tambua organisation"
		body = fmt.Sprintf("You have been invited to a Tambua console organisation.\n\nOpen the console's invitation page and enter this code: %s\n\nIt expires in %d minutes.\n", code, int(emailCodeTTL.Minutes()))
	}
	return a.mail.Send(ctx, webhook.Mail{To: []string{email}, Subject: subject, Body: body})
}

// useCode checks and spends a one-time code: wrong, expired, used and
// over-tried codes all get ErrBadCode, and every wrong guess counts.
func (a *Accounts) useCode(ctx context.Context, email, purpose, code string) error {
	defer a.locks.lock("code " + purpose + " " + email)()
	c, err := a.st.EmailCode(ctx, email, purpose)
	if errors.Is(err, store.ErrNotFound) {
		return ErrBadCode
	}
	if err != nil {
		return err
	}
	if c.UsedAt != nil || !a.now().Before(c.ExpiresAt) || c.Attempts >= emailCodeAttempts {
		return ErrBadCode
	}
	if !hmac.Equal([]byte(c.CodeHash), []byte(a.codeHash(email, purpose, strings.TrimSpace(code)))) {
		c.Attempts++
		if err := a.st.UpdateEmailCode(ctx, c); err != nil {
			return err
		}
		return ErrBadCode
	}
	now := a.now()
	c.UsedAt = &now
	return a.st.UpdateEmailCode(ctx, c)
}

// SignupInput is the second step of sign-up.
type SignupInput struct {
	Email              string `json:"email"`
	Code               string `json:"code"`
	Name               string `json:"name"`
	Password           string `json:"password"`
	Organisation       string `json:"organisation"`
	RegistrationNumber string `json:"registration_number"`
	Industry           string `json:"industry"`
	MonthlyVolume      string `json:"monthly_volume"`
}

func checkPassword(p string) error {
	if n := utf8.RuneCountInString(p); n < minPassword || len(p) > maxPassword {
		return idv.Errorf(idv.EInvalid, "the password must have %d to %d characters", minPassword, maxPassword)
	}
	return nil
}

// Signup checks the emailed code and creates the organisation with its
// profile and its first member, an admin.
func (a *Accounts) Signup(ctx context.Context, in SignupInput) (store.User, error) {
	email := NormaliseEmail(in.Email)
	if email == "" {
		return store.User{}, idv.Errorf(idv.EInvalid, "enter a valid email address")
	}
	var err error
	var p store.OrgProfile
	if in.Name, err = cleanText("your name", in.Name, 1, 255); err != nil {
		return store.User{}, err
	}
	if in.Organisation, err = cleanText("organisation name", in.Organisation, 2, 255); err != nil {
		return store.User{}, err
	}
	if p.RegistrationNumber, err = cleanText("registration number or tax PIN", in.RegistrationNumber, 0, 64); err != nil {
		return store.User{}, err
	}
	if p.Industry, err = cleanText("industry or use case", in.Industry, 0, 255); err != nil {
		return store.User{}, err
	}
	if p.MonthlyVolume, err = cleanText("expected monthly volume", in.MonthlyVolume, 0, 64); err != nil {
		return store.User{}, err
	}
	if err := checkPassword(in.Password); err != nil {
		return store.User{}, err
	}
	if _, err := a.st.UserByEmail(ctx, email); err == nil {
		return store.User{}, ErrEmailTaken
	}
	if err := a.useCode(ctx, email, "signup", in.Code); err != nil {
		return store.User{}, err
	}
	hash, err := HashSecret(in.Password)
	if err != nil {
		return store.User{}, err
	}
	org, err := a.admin.CreateOrganisation(ctx, in.Organisation)
	if err != nil {
		return store.User{}, err
	}
	p.OrganisationID = org.ID
	if err := a.st.PutOrgProfile(ctx, p); err != nil {
		return store.User{}, err
	}
	u := store.User{ID: idv.NewRequestID(), OrganisationID: org.ID, Email: email, Name: in.Name, Role: store.RoleAdmin, PasswordHash: hash}
	if err := a.st.CreateUser(ctx, u); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return store.User{}, ErrEmailTaken
		}
		return store.User{}, err
	}
	_ = a.admin.audit(ctx, org.ID, "console.signup", "user", u.ID, "")
	return a.st.User(ctx, u.ID)
}

// Invite adds a member with a role and mails them a code to accept with.
func (a *Accounts) Invite(ctx context.Context, org int64, email, role string) (store.User, error) {
	email = NormaliseEmail(email)
	if email == "" {
		return store.User{}, idv.Errorf(idv.EInvalid, "enter a valid email address")
	}
	if role != store.RoleAdmin && role != store.RoleDeveloper && role != store.RoleReviewer {
		return store.User{}, idv.Errorf(idv.EInvalid, "role must be admin, developer or reviewer")
	}
	u := store.User{ID: idv.NewRequestID(), OrganisationID: org, Email: email, Role: role}
	if err := a.st.CreateUser(ctx, u); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return store.User{}, ErrEmailTaken
		}
		return store.User{}, err
	}
	if err := a.SendCode(ctx, email, "invite"); err != nil {
		return store.User{}, err
	}
	_ = a.admin.audit(ctx, org, "member.invited", "user", u.ID, role)
	return a.st.User(ctx, u.ID)
}

// AcceptInvite sets an invited member's name and password.
func (a *Accounts) AcceptInvite(ctx context.Context, email, code, name, password string) (store.User, error) {
	email = NormaliseEmail(email)
	u, err := a.st.UserByEmail(ctx, email)
	if err != nil || u.PasswordHash != "" {
		return store.User{}, ErrBadCode
	}
	if name, err = cleanText("your name", name, 1, 255); err != nil {
		return store.User{}, err
	}
	if err := checkPassword(password); err != nil {
		return store.User{}, err
	}
	if err := a.useCode(ctx, email, "invite", code); err != nil {
		return store.User{}, err
	}
	if u.PasswordHash, err = HashSecret(password); err != nil {
		return store.User{}, err
	}
	u.Name = name
	if err := a.st.UpdateUser(ctx, u); err != nil {
		return store.User{}, err
	}
	_ = a.admin.audit(ctx, u.OrganisationID, "member.joined", "user", u.ID, "")
	return u, nil
}

// failed counts a failed sign-in and locks the account at lockoutAfter.
func (a *Accounts) failed(ctx context.Context, u store.User) error {
	u.FailedAttempts++
	if u.FailedAttempts >= lockoutAfter {
		u.LockedUntil = a.now().Add(lockoutFor)
		u.FailedAttempts = 0
		_ = a.admin.audit(ctx, u.OrganisationID, "member.locked", "user", u.ID, "")
	}
	return a.st.UpdateUser(ctx, u)
}

// CheckPassword is the first sign-in step. needTOTP says whether a second
// factor must follow.
func (a *Accounts) CheckPassword(ctx context.Context, email, password string) (u store.User, needTOTP bool, err error) {
	email = NormaliseEmail(email)
	defer a.locks.lock("user " + email)()
	u, err = a.st.UserByEmail(ctx, email)
	if err != nil || u.PasswordHash == "" {
		CheckSecret(dummyHash, password) // the same time as a real check
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return u, false, err
		}
		return store.User{}, false, ErrBadCredentials
	}
	if a.now().Before(u.LockedUntil) {
		return store.User{}, false, ErrLocked
	}
	if !CheckSecret(u.PasswordHash, password) {
		if err := a.failed(ctx, u); err != nil {
			return store.User{}, false, err
		}
		return store.User{}, false, ErrBadCredentials
	}
	if !u.TOTPEnabled {
		u.FailedAttempts = 0
		if err := a.st.UpdateUser(ctx, u); err != nil {
			return store.User{}, false, err
		}
	}
	return u, u.TOTPEnabled, nil
}

// CheckSecondFactor is the second sign-in step: a TOTP code (each at most
// once) or an unused recovery code (spent).
func (a *Accounts) CheckSecondFactor(ctx context.Context, userID, code string) (store.User, error) {
	u, err := a.st.User(ctx, userID)
	if err != nil {
		return store.User{}, ErrBadTOTP
	}
	// Read again under the account's lock: the counts and the last TOTP
	// step must be the ones this step writes back over.
	defer a.locks.lock("user " + u.Email)()
	if u, err = a.st.User(ctx, userID); err != nil {
		return store.User{}, ErrBadTOTP
	}
	if a.now().Before(u.LockedUntil) {
		return store.User{}, ErrLocked
	}
	code = strings.ReplaceAll(strings.TrimSpace(code), " ", "")
	ok := false
	if len(code) == 6 {
		ok = a.acceptTOTP(&u, code)
	} else if i := a.matchRecovery(u, code); i >= 0 {
		u.RecoveryCodes = append(u.RecoveryCodes[:i:i], u.RecoveryCodes[i+1:]...)
		ok = true
	}
	if !ok {
		if err := a.failed(ctx, u); err != nil {
			return store.User{}, err
		}
		return store.User{}, ErrBadTOTP
	}
	u.FailedAttempts = 0
	return u, a.st.UpdateUser(ctx, u)
}

// acceptTOTP checks code against the user's key at the current step and
// one step either side (clock drift), refusing any step already used.
func (a *Accounts) acceptTOTP(u *store.User, code string) bool {
	secret, err := a.open(u.TOTPSecret)
	if err != nil {
		return false
	}
	now := a.now()
	step := now.Unix() / 30
	for _, d := range []int64{0, -1, 1} {
		s := step + d
		if s <= u.TOTPLastStep {
			continue
		}
		want, err := totp.GenerateCodeCustom(secret, time.Unix(s*30, 0), totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err == nil && hmac.Equal([]byte(want), []byte(code)) {
			u.TOTPLastStep = s
			return true
		}
	}
	return false
}

func (a *Accounts) matchRecovery(u store.User, code string) int {
	code = strings.ToLower(strings.ReplaceAll(code, "-", ""))
	if len(code) != 10 {
		return -1
	}
	for i, h := range u.RecoveryCodes {
		if CheckSecret(h, code) {
			return i
		}
	}
	return -1
}

// Enrolment is a TOTP key on its way to being confirmed.
type Enrolment struct {
	Secret string `json:"secret"`
	URL    string `json:"otpauth_url"`
	// QR is a PNG of the otpauth URL as a data: URL.
	QR string `json:"qr_png"`
}

// EnrolTOTP makes a new TOTP key for the user, stored sealed and not yet
// enabled (a code must confirm it).
func (a *Accounts) EnrolTOTP(ctx context.Context, userID string) (Enrolment, error) {
	u, err := a.st.User(ctx, userID)
	if err != nil {
		return Enrolment{}, err
	}
	if u.TOTPEnabled {
		return Enrolment{}, idv.Errorf(idv.EInvalid, "two-factor authentication is already on")
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: a.Issuer, AccountName: u.Email})
	if err != nil {
		return Enrolment{}, err
	}
	if u.TOTPSecret, err = a.sealText(key.Secret()); err != nil {
		return Enrolment{}, err
	}
	if err := a.st.UpdateUser(ctx, u); err != nil {
		return Enrolment{}, err
	}
	img, err := key.Image(220, 220)
	if err != nil {
		return Enrolment{}, err
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return Enrolment{}, err
	}
	return Enrolment{Secret: key.Secret(), URL: key.URL(), QR: "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())}, nil
}

// ConfirmTOTP turns two-factor on once a code from the new key checks,
// and returns the recovery codes, shown this once.
func (a *Accounts) ConfirmTOTP(ctx context.Context, userID, code string) ([]string, error) {
	u, err := a.st.User(ctx, userID)
	if err != nil {
		return nil, err
	}
	if u.TOTPEnabled || u.TOTPSecret == "" {
		return nil, idv.Errorf(idv.EInvalid, "start the enrolment first")
	}
	if !a.acceptTOTP(&u, strings.TrimSpace(code)) {
		return nil, ErrBadTOTP
	}
	codes := make([]string, recoveryCodes)
	u.RecoveryCodes = make([]string, recoveryCodes)
	for i := range codes {
		raw := recoveryCode()
		codes[i] = raw[:5] + "-" + raw[5:]
		if u.RecoveryCodes[i], err = HashSecret(raw); err != nil {
			return nil, err
		}
	}
	u.TOTPEnabled = true
	if err := a.st.UpdateUser(ctx, u); err != nil {
		return nil, err
	}
	_ = a.admin.audit(ctx, u.OrganisationID, "member.totp_enabled", "user", u.ID, "")
	return codes, nil
}

// recoveryCode returns 10 random characters from an alphabet without the
// look-alikes 0/o and 1/l/i (31 letters: about 49 bits).
func recoveryCode() string {
	const alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
	b := make([]byte, 10)
	for i := range b {
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		b[i] = alphabet[n.Int64()]
	}
	return string(b)
}

func (a *Accounts) sealText(s string) (string, error) {
	nonce := make([]byte, a.seal.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawStdEncoding.EncodeToString(a.seal.Seal(nonce, nonce, []byte(s), nil)), nil
}

func (a *Accounts) open(s string) (string, error) {
	b, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil || len(b) < a.seal.NonceSize() {
		return "", errors.New("server: sealed value unreadable")
	}
	out, err := a.seal.Open(nil, b[:a.seal.NonceSize()], b[a.seal.NonceSize():], nil)
	return string(out), err
}

// sessionClaims are a console session JWT's claims.
type sessionClaims struct {
	jwt.RegisteredClaims
	Type string `json:"typ"`
	Org  int64  `json:"org"`
}

// StartSession records a session for u and returns its JWT.
func (a *Accounts) StartSession(ctx context.Context, u store.User) (string, error) {
	now := a.now()
	id := randomToken(18)
	if err := a.st.CreateSession(ctx, store.Session{ID: id, UserID: u.ID, OrganisationID: u.OrganisationID, ExpiresAt: now.Add(SessionTTL)}); err != nil {
		return "", err
	}
	_ = a.admin.audit(ctx, u.OrganisationID, "console.signin", "user", u.ID, "")
	return jwt.NewWithClaims(jwt.SigningMethodHS256, sessionClaims{
		RegisteredClaims: jwt.RegisteredClaims{Issuer: issuer, Subject: u.ID, ID: id, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(SessionTTL))},
		Type:             "console", Org: u.OrganisationID,
	}).SignedString(a.key)
}

// mfaToken is the short-lived proof that the password step passed.
func (a *Accounts) mfaToken(u store.User) (string, error) {
	now := a.now()
	return jwt.NewWithClaims(jwt.SigningMethodHS256, sessionClaims{
		RegisteredClaims: jwt.RegisteredClaims{Issuer: issuer, Subject: u.ID, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(mfaTTL))},
		Type:             "console_mfa", Org: u.OrganisationID,
	}).SignedString(a.key)
}

func (a *Accounts) parseJWT(raw, typ string) (*sessionClaims, error) {
	var c sessionClaims
	tok, err := jwt.ParseWithClaims(raw, &c, func(*jwt.Token) (any, error) { return a.key, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithIssuer(issuer),
		jwt.WithTimeFunc(a.now), jwt.WithExpirationRequired())
	if err != nil || !tok.Valid || c.Type != typ || c.Subject == "" || c.Org <= 0 {
		return nil, errToken
	}
	return &c, nil
}

// Session resolves a session JWT to its live session and member.
func (a *Accounts) Session(ctx context.Context, raw string) (store.Session, store.User, error) {
	c, err := a.parseJWT(raw, "console")
	if err != nil {
		return store.Session{}, store.User{}, err
	}
	s, err := a.st.Session(ctx, c.ID)
	if err != nil || s.RevokedAt != nil || !a.now().Before(s.ExpiresAt) || s.UserID != c.Subject || s.OrganisationID != c.Org {
		return store.Session{}, store.User{}, errToken
	}
	u, err := a.st.User(ctx, s.UserID)
	if err != nil || u.OrganisationID != s.OrganisationID {
		return store.Session{}, store.User{}, errToken
	}
	return s, u, nil
}

// csrfToken is the session's CSRF token: a keyed hash of its id, so it
// needs no storage and dies with the session.
func (a *Accounts) csrfToken(sessionID string) string {
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte("csrf\x00" + sessionID))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}
