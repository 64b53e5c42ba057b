package synth

import (
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/tambua/tambua/idv"
)

// AttackEditedMRZ is an edited field whose forger also wrote the MRZ (and
// the barcode) again for the new value, with correct check digits, so
// nothing on the card disagrees with the print but the print itself.
const AttackEditedMRZ = "edited_field_mrz"

// editFonts are the faces a forger without the card's own types reaches
// for: a serif, a regular weight, a monospace, a narrow cut.
var editFonts = []string{fontLibSerifBold, fontLibSans, fontSans, fontSerifBold, fontLibMonoBold, fontDejaCondBold}

// editPlan is how one printed value was altered. Every choice is drawn
// from the strength: 0 is a careful forger (the card's font, size and ink,
// the background restored, on the baseline), 1 a careless one.
type editPlan struct {
	field, value, norm string
	strength           float64
	// font is the face the new value is set in ("" the card's own).
	font  string
	size  float64 // of the card's value size
	shift vec     // of the baseline, px
	angle float64 // radians
	// ink is how far the ink is from the card's (0 the same) toward
	// inkTo.
	ink   float64
	inkTo rgb
	// patch is the opacity of the flat tint painted where the old value
	// was scraped off (0: the background restored, as a digital edit can).
	patch float64
	// mrz is set when the MRZ and the barcode were written again.
	mrz bool
	// reprint is how the forger printed the MRZ lines the new value
	// changed (nil when none changed).
	reprint *mrzReprint
}

// drawEditLook draws how the new value is printed.
func drawEditLook(g *rng, e *editPlan) {
	s := g.float()
	e.strength = round3(s)
	if g.chance(0.25 + 0.6*s) {
		e.font = pick(g, editFonts)
	}
	e.size = 1 + g.sign()*g.rangef(0, 0.03+0.15*s)
	e.shift = vec{round2(g.sign() * g.rangef(0, 0.5+2.5*s)), round2(g.sign() * g.rangef(0.3*s, 0.3+4.7*s))}
	e.angle = g.sign() * g.rangef(0.05, 0.05+1.4*s) * math.Pi / 180
	e.ink = 0.1 + 0.8*s*g.float()
	e.inkTo = pick(g, []rgb{{45, 40, 50}, {30, 35, 80}, {70, 50, 35}, {5, 5, 5}})
	if g.chance(0.3 + 0.6*s) {
		e.patch = 0.6 + 0.4*s
	}
}

// detail records the plan in attack_detail.
func (e editPlan) detail(d map[string]any, oldValue string) {
	d["field"] = e.field
	d["original_value"] = oldValue
	d["edited_value"] = e.norm
	d["strength"] = e.strength
	d["grade"] = gradeOf(e.strength)
	font := "card's own"
	if e.font != "" {
		font = filepath.Base(e.font)
	}
	d["font"] = font
	d["size"] = round3(e.size)
	d["baseline_shift_px"] = []float64{e.shift.X, e.shift.Y}
	d["angle_deg"] = round2(e.angle * 180 / math.Pi)
	d["ink_change"] = round3(e.ink)
	d["patch_opacity"] = round3(e.patch)
	d["mrz_recomputed"] = e.mrz
}

// rewriteMRZ writes the MRZ and the barcode again for the edited value, as
// a forger who knows the check digits does.
func rewriteMRZ(d *idv.DocumentDefinition, id *identity, e *editPlan, old string) {
	f, ok := d.Field(e.field)
	if !ok {
		return
	}
	id.values[e.field] = e.norm
	if m := id.mrz; m != nil {
		before := *m
		switch f.MRZ {
		case "document_number":
			m.Number = e.norm
		case "optional_data", "personal_number":
			m.Optional = e.norm
		case "surname":
			m.Surname = e.norm
		case "given_names":
			m.Given = e.norm
		case "date_of_birth", "date_of_expiry":
			if t, err := time.Parse("02.01.2006", e.norm); err == nil {
				if f.MRZ == "date_of_birth" {
					m.DOB = t
				} else {
					m.Expiry = t
				}
			}
		default:
			// a national number the zone carries in its optional data
			if m.Optional != "" && mrzText(m.Optional) == mrzText(old) {
				m.Optional = e.norm
			}
		}
		if _, err := m.lines(); err != nil {
			// the new value does not fit the zone: the forger left it
			*m = before
		}
	}
	if d.Barcode != nil {
		var parts []string
		parts = append(parts, d.Config)
		for _, name := range d.Barcode.Fields {
			parts = append(parts, name+"="+id.values[name])
		}
		id.barcode = strings.Join(parts, "|")
	}
}
