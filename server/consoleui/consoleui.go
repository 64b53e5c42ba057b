// Package consoleui holds the web console's templates, stylesheet and
// script, embedded in the binary: no Node.js and no build step, so what
// is in this folder is what is served (docs/console.md).
package consoleui

import "embed"

// Templates are the pages (html/template), each rendered inside
// templates/layout.html.
//
//go:embed templates/*.html
var Templates embed.FS

// Static are the files served under /console/static/.
//
//go:embed static/*
var Static embed.FS
