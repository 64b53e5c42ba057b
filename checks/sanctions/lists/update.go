package lists

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// RemoteFile is one file of a list as its publisher serves it.
type RemoteFile struct {
	// Name is the file name in the snapshot folder (Load recognises it).
	Name string `json:"name"`
	URL  string `json:"url"`
}

// Publication is one list and where its publisher serves it.
type Publication struct {
	List  string       `json:"list"`
	Files []RemoteFile `json:"files"`
	// Note is shown in docs and `lists update --help` (licence terms).
	Note string `json:"note,omitempty"`
}

const ofacBase = "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/"

// Publishers are the official download addresses of every list, as of
// 2026. docs/sanctions.md lists them too.
var Publishers = []Publication{
	{List: OFACSDN, Files: []RemoteFile{
		{"sdn.csv", ofacBase + "SDN.CSV"}, {"alt.csv", ofacBase + "ALT.CSV"},
		{"add.csv", ofacBase + "ADD.CSV"}, {"sdn_comments.csv", ofacBase + "SDN_COMMENTS.CSV"},
	}},
	{List: OFACCons, Files: []RemoteFile{
		{"cons_prim.csv", ofacBase + "CONS_PRIM.CSV"}, {"cons_alt.csv", ofacBase + "CONS_ALT.CSV"},
		{"cons_add.csv", ofacBase + "CONS_ADD.CSV"}, {"cons_comments.csv", ofacBase + "CONS_COMMENTS.CSV"},
	}},
	{List: UN, Files: []RemoteFile{{"un_consolidated.xml", "https://scsanctions.un.org/resources/xml/en/consolidated.xml"}}},
	{List: EU, Files: []RemoteFile{{"eu_fsf.xml",
		"https://webgate.ec.europa.eu/fsd/fsf/public/files/xmlFullSanctionsList_1_1/content?token=dG9rZW4tMjAxNw"}},
		Note: "EU Commission FSF data; reuse authorised with attribution (Commission Decision 2011/833/EU)"},
	{List: USCSL, Files: []RemoteFile{{"csl.csv", "https://data.trade.gov/downloadable_consolidated_screening_list/v1/consolidated.csv"}}},
	{List: BISDPL, Files: []RemoteFile{{"dpl.txt", "https://www.bis.doc.gov/dpl/dpl.txt"}}},
	{List: PEP, Files: []RemoteFile{{"peps_senzing.json", "https://data.opensanctions.org/datasets/latest/peps/senzing.json"}},
		Note: "OpenSanctions data, CC BY-NC 4.0: commercial use needs an OpenSanctions licence; not downloaded unless asked for"},
}

// DefaultLists are the lists `lists update` fetches unless told otherwise:
// every official sanctions list. PEPs need a licence for commercial use.
var DefaultLists = []string{OFACSDN, OFACCons, UN, EU, USCSL, BISDPL}

// Manifest records what a snapshot holds.
type Manifest struct {
	Created time.Time      `json:"created"`
	Files   []ManifestFile `json:"files"`
	Sources []Source       `json:"sources"`
	Lists   []string       `json:"lists"`
}

// ManifestFile is one downloaded file.
type ManifestFile struct {
	Name   string `json:"name"`
	URL    string `json:"url"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// Updater downloads lists into a snapshot folder.
type Updater struct {
	// Client does the downloads (http.DefaultClient when nil).
	Client *http.Client
	// Publications to fetch (Publishers filtered by Lists when nil).
	Publications []Publication
	// Lists names the publications to fetch (DefaultLists when nil).
	Lists []string
	// MaxBytes caps one file (1 GiB when zero).
	MaxBytes int64
	// Keep is how many snapshots to keep, the new one included (2 when
	// zero).
	Keep int
	Now  func() time.Time
}

// Update downloads every file, checks that the whole set parses, and
// makes it the current snapshot of dir in one atomic step: dir/current is
// a symbolic link replaced by rename, so a reader sees the old set or the
// new one, never a mix, and a failed download leaves the old set in place.
func (u *Updater) Update(ctx context.Context, dir string) (*Manifest, error) {
	pubs, err := u.publications()
	if err != nil {
		return nil, err
	}
	client := u.Client
	if client == nil {
		client = http.DefaultClient
	}
	now := time.Now
	if u.Now != nil {
		now = u.Now
	}
	snaps := filepath.Join(dir, "snapshots")
	if err := os.MkdirAll(snaps, 0o755); err != nil {
		return nil, fmt.Errorf("lists: %w", err)
	}
	if fi, err := os.Lstat(filepath.Join(dir, CurrentLink)); err == nil && fi.Mode()&os.ModeSymlink == 0 {
		return nil, fmt.Errorf("lists: %s exists and is not a symbolic link; refusing to replace it", filepath.Join(dir, CurrentLink))
	}
	tmp, err := os.MkdirTemp(snaps, ".incoming-")
	if err != nil {
		return nil, fmt.Errorf("lists: %w", err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	man := &Manifest{Created: now().UTC()}
	for _, p := range pubs {
		man.Lists = append(man.Lists, p.List)
		for _, f := range p.Files {
			mf, err := u.fetch(ctx, client, f, filepath.Join(tmp, f.Name))
			if err != nil {
				return nil, err
			}
			man.Files = append(man.Files, mf)
		}
	}
	snap, err := Load(tmp)
	if err != nil {
		return nil, fmt.Errorf("lists: downloaded files do not parse, keeping the current snapshot: %w", err)
	}
	for _, s := range snap.Sources {
		if s.Entities == 0 {
			return nil, fmt.Errorf("lists: %s downloaded empty, keeping the current snapshot", s.List)
		}
	}
	man.Sources = snap.Sources
	mb, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, ManifestName), append(mb, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("lists: %w", err)
	}
	name := man.Created.Format("20060102T150405Z")
	final := filepath.Join(snaps, name)
	for i := 1; ; i++ {
		if _, err := os.Lstat(final); errors.Is(err, os.ErrNotExist) {
			break
		}
		final = filepath.Join(snaps, fmt.Sprintf("%s-%d", name, i))
	}
	if err := os.Rename(tmp, final); err != nil {
		return nil, fmt.Errorf("lists: %w", err)
	}
	done = true
	link := filepath.Join(dir, ".current-"+filepath.Base(final))
	os.Remove(link)
	if err := os.Symlink(filepath.Join("snapshots", filepath.Base(final)), link); err != nil {
		return nil, fmt.Errorf("lists: %w", err)
	}
	if err := os.Rename(link, filepath.Join(dir, CurrentLink)); err != nil {
		os.Remove(link)
		return nil, fmt.Errorf("lists: %w", err)
	}
	u.prune(snaps, filepath.Base(final))
	return man, nil
}

func (u *Updater) publications() ([]Publication, error) {
	if u.Publications != nil {
		return u.Publications, nil
	}
	want := u.Lists
	if want == nil {
		want = DefaultLists
	}
	var out []Publication
	for _, l := range want {
		found := false
		for _, p := range Publishers {
			if p.List == l {
				out, found = append(out, p), true
			}
		}
		if !found {
			return nil, fmt.Errorf("lists: unknown list %q", l)
		}
	}
	return out, nil
}

func (u *Updater) fetch(ctx context.Context, client *http.Client, f RemoteFile, path string) (ManifestFile, error) {
	mf := ManifestFile{Name: f.Name, URL: f.URL}
	if strings.ContainsAny(f.Name, `/\`) || f.Name == "" || strings.HasPrefix(f.Name, ".") {
		return mf, fmt.Errorf("lists: bad file name %q", f.Name)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL, nil)
	if err != nil {
		return mf, fmt.Errorf("lists: %s: %w", f.URL, err)
	}
	req.Header.Set("User-Agent", "tambua-lists-update/1")
	resp, err := client.Do(req)
	if err != nil {
		return mf, fmt.Errorf("lists: downloading %s: %w", f.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return mf, fmt.Errorf("lists: downloading %s: HTTP %s", f.URL, resp.Status)
	}
	max := u.MaxBytes
	if max <= 0 {
		max = 1 << 30
	}
	out, err := os.Create(path)
	if err != nil {
		return mf, fmt.Errorf("lists: %w", err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(resp.Body, max+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return mf, fmt.Errorf("lists: downloading %s: %w", f.URL, err)
	}
	if n > max {
		return mf, fmt.Errorf("lists: %s is larger than %d bytes", f.URL, max)
	}
	mf.Bytes, mf.SHA256 = n, hex.EncodeToString(h.Sum(nil))
	return mf, nil
}

// prune removes all but the newest Keep snapshots, never the current one.
func (u *Updater) prune(snaps, current string) {
	keep := u.Keep
	if keep <= 0 {
		keep = 2
	}
	des, err := os.ReadDir(snaps)
	if err != nil {
		return
	}
	var names []string
	for _, de := range des {
		if de.IsDir() && !strings.HasPrefix(de.Name(), ".") {
			names = append(names, de.Name())
		}
	}
	sort.Strings(names)
	for i := 0; i < len(names)-keep; i++ {
		if names[i] != current {
			os.RemoveAll(filepath.Join(snaps, names[i]))
		}
	}
}
