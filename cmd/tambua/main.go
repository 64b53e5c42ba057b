// Command tambua verifies identity documents, serves the REST interface and
// renders and benchmarks test corpora. See tambua help.
package main

import (
	"os"

	_ "github.com/tambua/tambua/checks/standard"
	"github.com/tambua/tambua/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
