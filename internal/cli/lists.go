package cli

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/tambua/tambua/checks/sanctions/lists"
)

func init() {
	Register(&Command{
		Path:    "lists update",
		Summary: "download the sanctions lists from their publishers into a snapshot folder",
		Run:     runListsUpdate,
	})
}

func runListsUpdate(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "lists update")
	out := fs.String("out", lists.DefaultDir(), "snapshot folder (its current link is swapped atomically)")
	only := fs.String("lists", strings.Join(lists.DefaultLists, ","), "lists to fetch, comma separated")
	pep := fs.Bool("pep", false, "also fetch the OpenSanctions PEP list (CC BY-NC 4.0: commercial use needs a licence)")
	mirror := fs.String("mirror", "", "fetch every file as <mirror>/<file name> instead of from the publishers")
	caCert := fs.String("ca-cert", "", "PEM file of extra certificate authorities to trust (a mirror's)")
	timeout := fs.Duration("timeout", 10*time.Minute, "time allowed for the whole download")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef("unexpected argument %q", fs.Arg(0))
	}
	want := lists.SplitDirs(*only)
	if *pep {
		want = append(want, lists.PEP)
	}
	u := &lists.Updater{Lists: want}
	var pubs []lists.Publication
	for _, l := range want {
		found := false
		for _, p := range lists.Publishers {
			if p.List == l {
				pubs, found = append(pubs, p), true
			}
		}
		if !found {
			return Usagef("unknown list %q (known: %s)", l, knownLists())
		}
	}
	if *mirror != "" {
		base := strings.TrimRight(*mirror, "/")
		if !strings.HasPrefix(base, "https://") {
			return Usagef("--mirror must be an https:// address")
		}
		for i := range pubs {
			files := make([]lists.RemoteFile, len(pubs[i].Files))
			for j, f := range pubs[i].Files {
				files[j] = lists.RemoteFile{Name: f.Name, URL: base + "/" + f.Name}
			}
			pubs[i].Files = files
		}
	}
	u.Publications = pubs
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if *caCert != "" {
		pem, err := os.ReadFile(*caCert)
		if err != nil {
			return Usagef("--ca-cert: %v", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return Usagef("--ca-cert: no PEM certificate in %s", *caCert)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	u.Client = &http.Client{Transport: tr, Timeout: *timeout}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	man, err := u.Update(ctx, *out)
	if err != nil {
		return err
	}
	for _, s := range man.Sources {
		fmt.Fprintf(env.Stdout, "%-10s %7d entities  %s\n", s.List, s.Entities, strings.Join(s.Files, " "))
	}
	fmt.Fprintf(env.Stdout, "snapshot %s is current in %s\n", man.Created.Format(time.RFC3339), *out)
	return nil
}

func knownLists() string {
	var names []string
	for _, p := range lists.Publishers {
		names = append(names, p.List)
	}
	return strings.Join(names, ", ")
}
