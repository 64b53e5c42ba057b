package lists

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Snapshot is a set of lists read together.
type Snapshot struct {
	Entities []*Entity
	// Sources says which files gave which list, and how many entities.
	Sources []Source
}

// Source is one list of a snapshot.
type Source struct {
	List     string   `json:"list"`
	Files    []string `json:"files"`
	Entities int      `json:"entities"`
}

// CurrentLink is the name of the symbolic link `lists update` points at
// the newest snapshot; Load follows it when present.
const CurrentLink = "current"

// ManifestName is the file `lists update` writes beside the lists.
const ManifestName = "manifest.json"

// Load reads every list file in dir (or in dir/current when the folder is
// one that `lists update` manages). Files are recognised by name and
// content; an unrecognised or malformed file is an error, and then
// nothing is returned: a half-read set of lists is never used.
func Load(dir string) (*Snapshot, error) {
	cur := filepath.Join(dir, CurrentLink)
	if fi, err := os.Stat(cur); err == nil && fi.IsDir() {
		dir = cur
	} else if li, lerr := os.Lstat(cur); lerr == nil && li.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("lists: %s points to a snapshot that is not there (run tambua lists update --out %s)", cur, dir)
	}
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("lists: %w", err)
	}
	files := map[string]NamedData{}
	var names []string
	for _, de := range des {
		n := de.Name()
		if de.IsDir() || strings.HasPrefix(n, ".") || ignoredFile(n) {
			continue
		}
		path := filepath.Join(dir, n)
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("lists: %w", err)
		}
		key := strings.ToLower(n)
		files[key] = NamedData{Name: path, Data: data}
		names = append(names, key)
	}
	sort.Strings(names)
	snap, err := parseFiles(files, names)
	if err != nil {
		return nil, err
	}
	if len(snap.Entities) == 0 {
		return nil, fmt.Errorf("lists: no list files in %s (run tambua lists update --out %s)", dir, dir)
	}
	return snap, nil
}

// LoadAll reads several folders into one snapshot.
func LoadAll(dirs ...string) (*Snapshot, error) {
	out := &Snapshot{}
	for _, d := range dirs {
		s, err := Load(d)
		if err != nil {
			return nil, err
		}
		out.Entities = append(out.Entities, s.Entities...)
		out.Sources = append(out.Sources, s.Sources...)
	}
	return out, nil
}

func ignoredFile(n string) bool {
	l := strings.ToLower(n)
	return l == ManifestName || strings.HasSuffix(l, ".md") || strings.HasSuffix(l, ".txt.sig") ||
		l == "license" || strings.HasPrefix(l, "readme")
}

// ofacSets are the file names of the two OFAC CSV lists.
var ofacSets = []struct {
	list                     string
	prim, alt, add, comments string
}{
	{OFACSDN, "sdn.csv", "alt.csv", "add.csv", "sdn_comments.csv"},
	{OFACCons, "cons_prim.csv", "cons_alt.csv", "cons_add.csv", "cons_comments.csv"},
}

// parseFiles parses a folder's files keyed by lower-case name.
func parseFiles(files map[string]NamedData, names []string) (*Snapshot, error) {
	snap := &Snapshot{}
	used := map[string]bool{}
	addList := func(list string, ents []*Entity, fs ...string) {
		snap.Entities = append(snap.Entities, ents...)
		snap.Sources = append(snap.Sources, Source{List: list, Files: fs, Entities: len(ents)})
	}
	for _, set := range ofacSets {
		part := func(n string) NamedData {
			if f, ok := files[n]; ok {
				used[n] = true
				return f
			}
			return NamedData{Name: n}
		}
		prim := part(set.prim)
		alt, add, com := part(set.alt), part(set.add), part(set.comments)
		if prim.Data == nil {
			for _, n := range []string{set.alt, set.add, set.comments} {
				if f, ok := files[n]; ok {
					return nil, perr(f.Name, 0, "%s without its primary file %s", n, set.prim)
				}
			}
			continue
		}
		ents, err := ParseOFAC(set.list, OFACFiles{Prim: prim, Alt: alt, Add: add, Comments: com})
		if err != nil {
			return nil, err
		}
		var fs []string
		for _, f := range []NamedData{prim, alt, add, com} {
			if f.Data != nil {
				fs = append(fs, filepath.Base(f.Name))
			}
		}
		addList(set.list, ents, fs...)
	}
	for _, n := range names {
		if used[n] {
			continue
		}
		f := files[n]
		list, parse := detect(n, f.Data)
		if parse == nil {
			return nil, perr(f.Name, 0, "unknown list file (expected OFAC sdn/alt/add/sdn_comments.csv or cons_*.csv, UN or EU XML, csl.csv, dpl.txt, Senzing .json)")
		}
		ents, err := parse(f.Name, f.Data)
		if err != nil {
			return nil, err
		}
		addList(list, ents, filepath.Base(f.Name))
	}
	return snap, nil
}

type parser func(file string, data []byte) ([]*Entity, error)

// detect recognises a list file by its name and first bytes.
func detect(name string, data []byte) (string, parser) {
	head := data
	if len(head) > 4096 {
		head = head[:4096]
	}
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	switch ext := filepath.Ext(name); ext {
	case ".xml":
		switch xmlRoot(data) {
		case "CONSOLIDATED_LIST":
			return UN, ParseUN
		case "export":
			return EU, ParseEU
		}
	case ".csv":
		first, _, _ := bytes.Cut(head, []byte("\n"))
		low := strings.ToLower(string(first))
		if strings.Contains(low, "source") && strings.Contains(low, "name") && strings.Contains(low, "alt_names") {
			return USCSL, ParseCSL
		}
	case ".txt", ".tsv":
		first, _, _ := bytes.Cut(head, []byte("\n"))
		low := strings.ToLower(string(first))
		if strings.Contains(low, "name") && strings.Contains(low, "effective_date") && strings.Contains(low, "\t") {
			return BISDPL, ParseDPL
		}
	case ".json", ".jsonl":
		t := bytes.TrimSpace(head)
		if len(t) > 0 && (t[0] == '[' || t[0] == '{') && bytes.Contains(head, []byte("RECORD_ID")) {
			return PEP, ParseSenzing
		}
	}
	return "", nil
}

// DefaultDir is where `tambua lists update` writes and screening reads
// when nothing else is configured: $TAMBUA_LISTS, else
// $XDG_DATA_HOME/tambua/lists, else ~/.local/share/tambua/lists. The
// product never reads lists from anywhere it was not told to.
func DefaultDir() string {
	if d := os.Getenv("TAMBUA_LISTS"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "tambua", "lists")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "share", "tambua", "lists")
	}
	return filepath.Join("tambua", "lists")
}

// SplitDirs splits a comma-separated list of folders.
func SplitDirs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
