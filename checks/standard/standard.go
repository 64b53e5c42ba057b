// Package standard registers every built-in check. Import it for its side
// effect:
//
//	import _ "github.com/tambua/tambua/checks/standard"
package standard

import (
	_ "github.com/tambua/tambua/checks/ocr" // ocr_extraction
)
