// Command plugin-check is an example custom check run as a plugin process:
// document_expiry fails a verification whose document has expired and sends
// to review one that expires within the workflow's min_days_valid.
//
// Build it and name it in a workflow:
//
//	go build -o bin/document-expiry ./examples/plugin-check
//	tambua verify --plugin bin/document-expiry --checks ocr_extraction,mrz_parsing,document_expiry ...
package main

import "github.com/tambua/tambua/plugins"

func main() { plugins.Serve(&expiry{}) }
