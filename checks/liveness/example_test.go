package liveness_test

import (
	"fmt"

	"github.com/tambua/tambua/checks/liveness"
)

// Judge maps the classifier's confidence onto the check's outcome: at or
// above the threshold the selfie passes as live, in the review band below
// it a person looks, under the band it fails as an attack.
func ExampleJudge() {
	m, err := liveness.Embedded()
	if err != nil {
		panic(err)
	}
	p := liveness.Params{Threshold: 0.80, ReviewBand: 0.10}
	for _, conf := range []float64{0.93, 0.75, 0.20} {
		a := liveness.Assessment{FaceFound: true, Confidence: conf, Features: m.Mean}
		sec, out := liveness.Judge(m, a, p)
		fmt.Println(conf, sec.Status, sec.Liveness, out.Reasons)
	}
	sec, out := liveness.Judge(m, liveness.Assessment{}, p)
	fmt.Println("no face", sec.Status, sec.Liveness, out.Reasons)
	// Output:
	// 0.93 passed true []
	// 0.75 review false [liveness_low_confidence]
	// 0.2 failed false [liveness_failed]
	// no face review false [no_face_in_selfie]
}
