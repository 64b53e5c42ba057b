package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tambua/tambua/server"
	"github.com/tambua/tambua/server/webhook"
)

func init() {
	Register(&Command{Path: "keys generate", Summary: "print a new signing key for replicas to share (TAMBUA_SIGNING_KEY or --keys-file)", Run: runKeysGenerate})
	Register(&Command{Path: "keys webhook-identity", Summary: "write a webhook client certificate, its key and CA into a folder, for every replica to present (--webhook-client-cert/-key/-ca)", Run: runKeysWebhookIdentity})
	Register(&Command{Path: "keys export", Summary: "print the signing keys a database holds, as a shared key value (tokens and file URLs stay valid)", Run: runKeysExport})
}

// runKeysGenerate prints a fresh secret: 32 random bytes in base64, from
// which serve derives the token and file-URL keys.
func runKeysGenerate(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "keys generate")
	if _, err := parseArgs(fs, args, 0); err != nil {
		return err
	}
	k, err := server.GenerateSigningKey()
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, k)
	return nil
}

// runKeysExport prints the keys the database keeps (a SQLite installation,
// or a PostgreSQL one that started before keys were shared), so the
// replicas can be given exactly those.
func runKeysExport(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "keys export")
	loc := dataFlag(fs, env)
	if _, err := parseArgs(fs, args, 0); err != nil {
		return err
	}
	st, err := openBackend(ctx, *loc.dir, *loc.db)
	if err != nil {
		return err
	}
	defer st.Close()
	v, err := server.ExportKeys(ctx, st)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, v)
	return nil
}

// runKeysWebhookIdentity writes the client identity replicas share for
// mutual TLS to webhook receivers: a private CA and a client certificate
// it signed. Existing files are never overwritten: receivers pin the CA.
func runKeysWebhookIdentity(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "keys webhook-identity")
	dir := fs.String("dir", "", "folder to write "+webhook.ClientCertFile+", "+webhook.ClientKeyFile+" and "+webhook.ClientCAFile+" into (required)")
	name := fs.String("name", "Tambua webhook client", "the certificate's common name")
	validity := fs.Duration("valid", 825*24*time.Hour, "how long the certificate is valid (receivers must be given a new CA before it ends)")
	if _, err := parseArgs(fs, args, 0); err != nil {
		return err
	}
	if *dir == "" {
		return Usagef("--dir is required")
	}
	if *validity <= 0 {
		return Usagef("--valid must be positive")
	}
	files := []string{webhook.ClientCAFile, webhook.ClientCertFile, webhook.ClientKeyFile}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(*dir, f)); err == nil {
			return Usagef("%s exists; remove it first (receivers pinning its CA would then need the new one)", filepath.Join(*dir, f))
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	caPEM, certPEM, keyPEM, err := webhook.GenerateClientIdentity(*name, time.Now(), *validity)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		return err
	}
	for i, data := range [][]byte{caPEM, certPEM, keyPEM} {
		mode := os.FileMode(0o644)
		if files[i] == webhook.ClientKeyFile {
			mode = 0o600
		}
		// O_EXCL: a file appearing since the check is not replaced.
		f, err := os.OpenFile(filepath.Join(*dir, files[i]), os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err != nil {
			return err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	for _, f := range files {
		fmt.Fprintln(env.Stdout, filepath.Join(*dir, f))
	}
	return nil
}
