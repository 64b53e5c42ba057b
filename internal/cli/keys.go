package cli

import (
	"context"
	"fmt"

	"github.com/tambua/tambua/server"
)

func init() {
	Register(&Command{Path: "keys generate", Summary: "print a new signing key for replicas to share (TAMBUA_SIGNING_KEY or --keys-file)", Run: runKeysGenerate})
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
