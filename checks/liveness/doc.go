// Package liveness is the liveness_detection check: passive
// presentation-attack detection from the selfie alone. It finds the
// dominant face with dlib (internal/facerec, shared with face_matching),
// measures image-distortion features of the face and of the frame around
// it (blur, chromatic moments, colour diversity, specular highlights, LBP
// texture, noise, spectral peaks of halftone and pixel grids, tonal range,
// face-to-frame geometry, the straight edges of a sheet or a device) and
// scores them with a logistic regression trained on the synthetic corpus
// (live selfies against print and screen replay attacks). The confidence
// is the classifier's probability that the selfie shows a live person.
//
// Import it for its registration:
//
//	import _ "github.com/tambua/tambua/checks/liveness"
//
// The weights are data, embedded from model.json; tambua liveness train
// (make train-liveness) regenerates them. The classifier knows only the
// synthetic attacks it was trained on: see docs/liveness.md for what it
// measures and where it does not help (masks, deepfakes, good replays).
package liveness
