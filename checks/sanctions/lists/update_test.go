package lists

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// publisherServer serves the shared test lists over HTTPS under the
// names the publishers use, and can be told to break one file.
func publisherServer(t *testing.T) (*httptest.Server, *atomic.Value) {
	t.Helper()
	files := map[string]string{
		"/SDN.CSV": dir(t, "ofac_sdn_2021-07") + "/sdn.csv", "/ALT.CSV": dir(t, "ofac_sdn_2021-07") + "/alt.csv",
		"/ADD.CSV": dir(t, "ofac_sdn_2021-07") + "/add.csv", "/SDN_COMMENTS.CSV": dir(t, "ofac_sdn_2021-07") + "/sdn_comments.csv",
		"/consolidated.xml": dir(t, "un") + "/UN_consolidated.xml",
	}
	broken := &atomic.Value{}
	broken.Store("")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		b, err := os.ReadFile(p)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		if broken.Load().(string) == r.URL.Path {
			b = b[:len(b)/2] // a download cut in the middle
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv, broken
}

func testPublications(base string) []Publication {
	return []Publication{
		{List: OFACSDN, Files: []RemoteFile{{"sdn.csv", base + "/SDN.CSV"}, {"alt.csv", base + "/ALT.CSV"},
			{"add.csv", base + "/ADD.CSV"}, {"sdn_comments.csv", base + "/SDN_COMMENTS.CSV"}}},
		{List: UN, Files: []RemoteFile{{"un_consolidated.xml", base + "/consolidated.xml"}}},
	}
}

func TestUpdateSwapsAtomically(t *testing.T) {
	srv, broken := publisherServer(t)
	out := t.TempDir()
	clock := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	u := &Updater{Client: srv.Client(), Publications: testPublications(srv.URL), Now: func() time.Time { return clock }}

	man, err := u.Update(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if len(man.Files) != 5 || len(man.Sources) != 2 {
		t.Fatalf("manifest %+v", man)
	}
	first, err := os.Readlink(filepath.Join(out, CurrentLink))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Entities) != 8976+1003 {
		t.Errorf("%d entities after update", len(snap.Entities))
	}

	// A broken download leaves the current snapshot as it was.
	broken.Store("/consolidated.xml")
	clock = clock.Add(time.Hour)
	if _, err := u.Update(context.Background(), out); err == nil || !strings.Contains(err.Error(), "un_consolidated.xml") {
		t.Fatalf("update with a truncated file: err = %v, want a parse error naming the file", err)
	}
	if now, _ := os.Readlink(filepath.Join(out, CurrentLink)); now != first {
		t.Errorf("current moved to %s after a failed update", now)
	}
	if des, _ := os.ReadDir(filepath.Join(out, "snapshots")); len(des) != 1 {
		t.Errorf("%d snapshot folders after a failed update, want 1", len(des))
	}

	// Two good updates later only two snapshots remain, current the newest.
	broken.Store("")
	for i := 0; i < 2; i++ {
		clock = clock.Add(time.Hour)
		if _, err := u.Update(context.Background(), out); err != nil {
			t.Fatal(err)
		}
	}
	des, _ := os.ReadDir(filepath.Join(out, "snapshots"))
	if len(des) != 2 {
		t.Errorf("%d snapshots kept, want 2", len(des))
	}
	if now, _ := os.Readlink(filepath.Join(out, CurrentLink)); now != filepath.Join("snapshots", "20261122T060000Z") {
		t.Errorf("current = %s", now)
	}
}

func TestUpdateHTTPError(t *testing.T) {
	srv, _ := publisherServer(t)
	u := &Updater{Client: srv.Client(), Publications: []Publication{{List: UN, Files: []RemoteFile{{"un.xml", srv.URL + "/missing"}}}}}
	out := t.TempDir()
	if _, err := u.Update(context.Background(), out); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("err = %v, want HTTP 404", err)
	}
	if _, err := os.Lstat(filepath.Join(out, CurrentLink)); err == nil {
		t.Error("a current link exists after a failed first update")
	}
	// The real publishers need a certificate the test server lacks.
	u = &Updater{Client: &http.Client{}, Publications: testPublications(srv.URL)}
	if _, err := u.Update(context.Background(), out); err == nil {
		t.Error("update trusted a certificate no authority signed")
	}
}

func TestPublishersAreHTTPS(t *testing.T) {
	for _, p := range Publishers {
		for _, f := range p.Files {
			if !strings.HasPrefix(f.URL, "https://") {
				t.Errorf("%s: %s is not https", p.List, f.URL)
			}
		}
	}
}

func TestLoadBrokenCurrentLink(t *testing.T) {
	d := t.TempDir()
	if err := os.Symlink(filepath.Join("snapshots", "gone"), filepath.Join(d, CurrentLink)); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(d); err == nil || !strings.Contains(err.Error(), "not there") {
		t.Errorf("err = %v", err)
	}
}
