package liveness

import "sort"

// Rates are the ISO/IEC 30107-3 error rates of a set of scored selfies
// at one threshold.
type Rates struct {
	Threshold float64 `json:"threshold"`
	// APCER is, per attack kind, the share of attacks accepted as live.
	APCER map[string]float64 `json:"apcer"`
	// BPCER is the share of live selfies not accepted as live (a live
	// selfie without a detected face counts as not accepted).
	BPCER    float64        `json:"bpcer"`
	Attacks  map[string]int `json:"attacks"`
	Live     int            `json:"live"`
	Accepted map[string]int `json:"attacks_accepted"`
	Rejected int            `json:"live_rejected"`
	// NoFace counts, per kind (live included), the selfies in which no
	// face was found: they go to review, so they are neither accepted
	// attacks nor accepted live selfies.
	NoFace map[string]int `json:"no_face,omitempty"`
}

// Scored is one selfie's kind and confidence; Face is false when no face
// was found (no confidence then).
type Scored struct {
	Kind       string
	Face       bool
	Confidence float64
}

// RatesAt computes the error rates of scored at threshold.
func RatesAt(scored []Scored, threshold float64) Rates {
	r := Rates{Threshold: threshold, APCER: map[string]float64{}, Attacks: map[string]int{}, Accepted: map[string]int{}}
	for _, s := range scored {
		accepted := s.Face && s.Confidence >= threshold
		if !s.Face {
			if r.NoFace == nil {
				r.NoFace = map[string]int{}
			}
			r.NoFace[s.Kind]++
		}
		if s.Kind == KindLive {
			r.Live++
			if !accepted {
				r.Rejected++
			}
			continue
		}
		r.Attacks[s.Kind]++
		if accepted {
			r.Accepted[s.Kind]++
		}
	}
	for k, n := range r.Attacks {
		r.APCER[k] = float64(r.Accepted[k]) / float64(n)
	}
	if r.Live > 0 {
		r.BPCER = float64(r.Rejected) / float64(r.Live)
	}
	return r
}

// Kinds returns the attack kinds present, sorted.
func (r Rates) Kinds() []string {
	out := make([]string, 0, len(r.Attacks))
	for k := range r.Attacks {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
