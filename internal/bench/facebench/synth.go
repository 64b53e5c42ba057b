package facebench

import (
	"context"
	"fmt"
	"image"
	"time"

	"github.com/tambua/tambua/checks/face"
	_ "github.com/tambua/tambua/checks/ocr" // Synth finds the ID photo through ocr_extraction, as face_matching does
	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/facerec"
	"github.com/tambua/tambua/internal/testkit/synth"
	"github.com/tambua/tambua/vision"
)

// SynthReport is the card-photo versus selfie part of the benchmark.
type SynthReport struct {
	Samples    int    `json:"samples"`
	Difficulty string `json:"difficulty"`
	Seed       uint64 `json:"seed,string"`
	// IDFrom counts where the search for the ID face started: the photo
	// zone of the rectified card (id_photo) or, when OCR found no card,
	// the raw capture. face.FindIDFace then searches as the check does.
	IDFrom          map[string]int `json:"id_face_from"`
	NoFaceInID      int            `json:"no_face_in_id"`
	NoFaceInSelfie  int            `json:"no_face_in_selfie"`
	GenuineMedian   float64        `json:"genuine_distance_median"`
	GenuineMax      float64        `json:"genuine_distance_max"`
	ImpostorMin     float64        `json:"impostor_distance_min"`
	AtDefault       face.Rates     `json:"at_default"`
	ROC             []face.Rates   `json:"roc"`
	SameSampleRates face.Rates     `json:"same_sample_pairs_at_default"`
	// Missed lists the samples whose own card/selfie pair did not match at
	// the default threshold, to look at (tambua synth with the same seed
	// renders them).
	Missed []MissedPair `json:"missed_same_sample_pairs"`
	// Selfie timings: detect + landmarks + embed of a whole synthetic
	// selfie (the longer side worked at 640 px), wall and process CPU.
	SelfieMSMedian    float64 `json:"selfie_detect_embed_ms_median"`
	SelfieMSP95       float64 `json:"selfie_detect_embed_ms_p95"`
	SelfieCPUMSMedian float64 `json:"selfie_detect_embed_cpu_ms_median"`
}

// MissedPair is a sample whose own card/selfie pair did not match.
type MissedPair struct {
	Index    int     `json:"index"`
	Config   string  `json:"config"`
	Distance float64 `json:"distance"` // -1: a face was missing
	IDFrom   string  `json:"id_face_from"`
}

// Synth renders n clean synthetic samples, finds the ID face the
// way the face_matching check does (OCR rectifies the card and cuts the
// photo zone) and the selfie face, then scores every card/selfie pair:
// genuine when the card and the selfie show the same johns person. A
// sample's own pair is the product's case; pairs across samples add
// impostors (and genuine pairs of a person drawn twice).
func Synth(ctx context.Context, m *face.Matcher, n int, diff string, seed uint64) (*SynthReport, error) {
	d, err := synth.ParseDifficulty(diff)
	if err != nil {
		return nil, err
	}
	defs := docdefs.Default()
	gen, err := synth.New(synth.Options{Definitions: defs.Drawn(), Seed: seed, Difficulty: d, ImpostorRate: -1})
	if err != nil {
		return nil, err
	}
	eng := idv.New(idv.WithDefinitions(defs))
	defer eng.Close()
	prepared := map[string]*idv.Prepared{}

	rep := &SynthReport{Samples: n, Difficulty: diff, Seed: seed, IDFrom: map[string]int{}}
	var wall, cpu []float64
	ids := make([]side, n)
	selfies := make([]side, n)
	for i := 0; i < n; i++ {
		s, err := gen.Sample(ctx, i)
		if err != nil {
			return nil, err
		}
		p, ok := prepared[s.Truth.Config]
		if !ok {
			wf := &idv.Workflow{Name: "face bench " + s.Truth.Config, DocumentTypes: []string{s.Truth.Config},
				Checks: []idv.CheckSpec{{Name: idv.CheckOCR}}}
			if p, err = eng.Prepare(wf); err != nil {
				return nil, err
			}
			prepared[s.Truth.Config] = p
		}
		var idPhoto, rectified image.Image
		in := idv.Input{Config: s.Truth.Config, Images: map[string]idv.Image{idv.SlotFront: {Data: s.Front}}, ClientID: "bench",
			StoreImage: func(_ context.Context, name string, img image.Image) (string, error) {
				switch name {
				case idv.ImageIDPhoto:
					idPhoto = img
				case idv.ImageFrontRectified:
					rectified = img
				}
				return name, nil
			}}
		if len(s.Back) > 0 && s.Truth.BackSide == "back" {
			in.Images[idv.SlotBack] = idv.Image{Data: s.Back}
		}
		if _, err := p.Verify(ctx, in); err != nil {
			return nil, fmt.Errorf("sample %d: %w", i, err)
		}
		ids[i].config, ids[i].from = s.Truth.Config, "id_photo"
		if idPhoto == nil {
			ids[i].from = "capture"
		}
		rep.IDFrom[ids[i].from]++
		idFace, err := m.FindIDFace(ctx, idPhoto, rectified, func() (image.Image, error) { return vision.Decode(s.Front) })
		if err != nil {
			return nil, fmt.Errorf("sample %d: %w", i, err)
		}
		selfieImg, err := facerec.Decode(s.Selfie)
		if err != nil {
			return nil, fmt.Errorf("sample %d selfie: %w", i, err)
		}
		t0, c0 := time.Now(), bench.ProcessCPU()
		selfieFace, err := m.Dominant(ctx, selfieImg)
		if err != nil {
			return nil, err
		}
		wall = append(wall, bench.MillisMicro(time.Since(t0)))
		cpu = append(cpu, bench.MillisMicro(bench.ProcessCPU()-c0))
		ids[i].person = s.Truth.Person.CardPerson
		selfies[i].person = s.Truth.Person.SelfiePerson
		if idFace.Face != nil {
			ids[i].desc = &idFace.Face.Descriptor
		} else {
			rep.NoFaceInID++
		}
		if selfieFace.Face != nil {
			selfies[i].desc = &selfieFace.Face.Descriptor
		} else {
			rep.NoFaceInSelfie++
		}
	}

	rep.SelfieMSMedian = round1(bench.Percentile(wall, 50))
	rep.SelfieCPUMSMedian = round1(bench.Percentile(cpu, 50))
	rep.SelfieMSP95 = round1(bench.Percentile(wall, 95))
	scorePairs(rep, ids, selfies)
	return rep, nil
}

// side is the card or the selfie of one sample.
type side struct {
	person string // the johns person shown
	config string
	from   string // where the search for the face started (id_photo or capture)
	desc   *facerec.Descriptor
}

// scorePairs scores every card against every selfie, genuine when both
// show the same person; a pair with a face missing counts as a non-match.
// The pairs of a sample's own card and selfie are also rated apart, and
// those that did not match at the default threshold listed.
func scorePairs(rep *SynthReport, ids, selfies []side) {
	var all, own []face.Pair
	var genuine, impostor []float64
	for i := range ids {
		for j := range selfies {
			p := face.Pair{A: fmt.Sprintf("card %d", i), B: fmt.Sprintf("selfie %d", j), Same: ids[i].person == selfies[j].person}
			if ids[i].desc == nil || selfies[j].desc == nil {
				p.Missing = true
			} else {
				p.Distance = facerec.Distance(*ids[i].desc, *selfies[j].desc)
				if p.Same {
					genuine = append(genuine, p.Distance)
				} else {
					impostor = append(impostor, p.Distance)
				}
			}
			all = append(all, p)
			if i == j {
				own = append(own, p)
				if face.RatesAt([]face.Pair{p}, face.DefaultThreshold).FalseNonMatch > 0 {
					d := -1.0
					if !p.Missing {
						d = round3(p.Distance)
					}
					rep.Missed = append(rep.Missed, MissedPair{Index: i, Config: ids[i].config, Distance: d, IDFrom: ids[i].from})
				}
			}
		}
	}
	rep.GenuineMedian = round3(bench.Percentile(genuine, 50))
	rep.GenuineMax = round3(bench.Percentile(genuine, 100))
	rep.ImpostorMin = round3(bench.Percentile(impostor, 0))
	rep.AtDefault = face.RatesAt(all, face.DefaultThreshold)
	rep.SameSampleRates = face.RatesAt(own, face.DefaultThreshold)
	for _, th := range face.ROCThresholds {
		rep.ROC = append(rep.ROC, face.RatesAt(all, th))
	}
}
