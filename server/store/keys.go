package store

import "strings"

// ValidFileKey reports whether key is acceptable to every FileStore: a
// relative path of segments of [A-Za-z0-9_.-] separated by '/', none
// empty, none starting with a dot, so it can neither leave a folder nor
// mean two different objects in a bucket.
func ValidFileKey(key string) bool {
	if key == "" || len(key) > 512 {
		return false
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg[0] == '.' || len(seg) > 128 {
			return false
		}
		for _, r := range seg {
			ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.'
			if !ok {
				return false
			}
		}
	}
	return true
}
