// Package standard registers every built-in check. Import it for its side
// effect:
//
//	import _ "github.com/tambua/tambua/checks/standard"
package standard

import (
	_ "github.com/tambua/tambua/checks/address"      // address_verification
	_ "github.com/tambua/tambua/checks/age"          // age_verification
	_ "github.com/tambua/tambua/checks/face"         // face_matching
	_ "github.com/tambua/tambua/checks/liveness"     // liveness_detection
	_ "github.com/tambua/tambua/checks/mrz"          // mrz_parsing
	_ "github.com/tambua/tambua/checks/ocr"          // ocr_extraction
	_ "github.com/tambua/tambua/checks/sanctions"    // sanctions_screening
	_ "github.com/tambua/tambua/checks/webhookcheck" // custom_webhook
)
