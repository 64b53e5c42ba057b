// Package vision is the image plumbing shared by the checks: decoding with
// EXIF orientation and size limits, finding an identity card in a phone
// photo, rectifying it with a perspective warp to its definition's aspect
// ratio, bringing it upright, and measuring capture quality.
//
// It is pure Go (no cgo) so that every check can use it.
//
//	img, err := vision.Decode(data)           // ErrNotImage, ErrTooLarge...
//	card, err := vision.Rectify(img, def, "front")
//	if errors.Is(err, vision.ErrCardNotFound) { ... reason card_not_found ... }
//	q := vision.Measure(card, def, "front")    // q.Reasons: image_too_blurry...
//
// See docs/vision.md for the algorithms and the thresholds.
package vision
