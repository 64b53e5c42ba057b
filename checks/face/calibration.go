package face

import "math"

// The workflow's face threshold is a similarity in [0.60, 0.95]; the model
// measures a Euclidean distance between descriptors. Similarity is the
// logistic map
//
//	similarity(d) = 1 / (1 + exp(Slope * (d - Midpoint)))
//
// which is strictly decreasing in d, lies in (0, 1), and is fixed by two
// choices:
//
//   - the default threshold 0.75 sits at distance 0.60, dlib's published
//     operating point for this model (99.38 % on LFW), which on the 1,485
//     johns pairs lies in the gap between the largest same-person distance
//     (0.557) and the smallest different-person distance (0.664);
//   - Slope 10 spreads the allowed threshold range over distances 0.669
//     (threshold 0.60, lenient) to 0.416 (threshold 0.95, strict).
//
// docs/face.md has the ROC table behind these numbers.
const (
	// DefaultThreshold is the catalog default of the face threshold.
	DefaultThreshold = 0.75
	// DefaultDistance is the distance at the default threshold.
	DefaultDistance = 0.60
	// Slope is the steepness of the logistic map, per unit of distance.
	Slope = 10.0
	// DefaultReviewBand is the width, in similarity, of the band below
	// the threshold where a pair goes to a person instead of failing.
	DefaultReviewBand = 0.10
)

// Midpoint is the distance where similarity is 0.5.
var Midpoint = DefaultDistance + math.Log(DefaultThreshold/(1-DefaultThreshold))/Slope

// Similarity maps a descriptor distance to a similarity in (0, 1).
func Similarity(distance float64) float64 {
	return 1 / (1 + math.Exp(Slope*(distance-Midpoint)))
}

// DistanceAt is the inverse of Similarity: the largest distance whose
// similarity is at least threshold. threshold must lie in (0, 1).
func DistanceAt(threshold float64) float64 {
	return Midpoint - math.Log(threshold/(1-threshold))/Slope
}
