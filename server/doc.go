// Package server is Tambua's reference REST server: the token endpoints
// (POST /oauth/token and the auth_config methods of POST /postdata), the
// /postdata envelope, POST /upload, POST /v1/verify, signed expiring URLs
// for stored images, /healthz, /readyz, Prometheus /metrics and /openapi.yaml.
//
// The package holds the HTTP handlers, authentication (HS256 JWT access
// tokens, client and workflow refresh tokens, argon2id client secrets) and
// the storage interfaces; adapters implement them: server/sqlite (the
// embedded SQLite store) and server/files (a local folder of images).
// Verifications run through an idv.Engine on a worker pool sized to the
// cores, inside the request, as the spec's blocking contract says. Units
// are claimed before anything runs and debited in the transaction that
// stores the result and its outbox events, so a retry with the same
// request_id returns the stored result and never bills twice.
//
// Building a server:
//
//	db, _ := sqlite.Open(ctx, "data/tambua.db")
//	keys, _ := server.LoadKeys(ctx, db)
//	fs, _ := files.Open("data/files")
//	engine := idv.New(idv.WithDefinitions(docdefs.Default()))
//	srv, _ := server.New(server.Config{BaseURL: "https://idv.example.com"}, db, fs, engine, docdefs.Default(), keys)
//	srv.HTTPServer(":8080").ListenAndServe()
//
// docs/server.md documents every choice the interface specification
// leaves open: error codes and HTTP statuses, field names, limits, file URL
// signing and events.
package server
