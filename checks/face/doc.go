// Package face is the face_matching check: it finds the dominant face in
// the ID photo and in the selfie with dlib (through internal/facerec and
// github.com/Kagami/go-face), compares their 128-d descriptors and fills the
// photo_comparison section. Import it for its registration:
//
//	import _ "github.com/tambua/tambua/checks/face"
//
// The workflow's face threshold is a similarity; Similarity and DistanceAt
// convert between it and the descriptor distance (see calibration.go and
// docs/face.md).
package face
