package synth

import "github.com/tambua/tambua/idv"

// style is how a document prints, where the definition does not say: the
// choices come from public photographs of each card and are approximate.
type style struct {
	greyPhoto  bool   // laser-engraved cards print the holder in greyscale
	softPhoto  bool   // the photo fades into the background
	valueFont  string // font of field values
	labelFont  string
	titleFont  string
	flag       []rgb // the flag stripe along the bottom edge
	ink        rgb   // values
	labelInk   rgb
	accent     rgb // titles, emblem ring
	radiusMM   float64
	passport   bool
	laminateFx float64 // strength of the plastic sheen
}

var (
	black  = rgb{20, 20, 22}
	red    = rgb{190, 30, 40}
	green  = rgb{0, 120, 60}
	yellow = rgb{245, 200, 0}
	white  = rgb{250, 250, 250}
	blue   = rgb{20, 70, 160}
	gold   = rgb{205, 160, 40}
)

var flags = map[string][]rgb{
	"KEN": {black, white, red, white, green},
	"UGA": {black, yellow, red, black, yellow, red},
	"NGA": {green, white, green},
	"GHA": {red, gold, green},
	"ZAF": {red, white, green, yellow, black, blue},
	"TZA": {green, yellow, black, yellow, blue},
	"UTO": {blue, white, blue},
}

func styleFor(d *idv.DocumentDefinition) style {
	s := style{
		valueFont: fontSansBold, labelFont: fontCond, titleFont: fontSansBold,
		ink: rgb{25, 25, 30}, labelInk: rgb{40, 60, 110}, accent: rgb{30, 70, 60},
		radiusMM: 3.18, flag: flags[d.Country], laminateFx: 0.5,
	}
	if s.flag == nil {
		s.flag = flags["UTO"]
	}
	switch d.Config {
	case "ke_maisha_card", "south_africa_id", "uganda_national_id_new", "nigeria_national_id":
		// polycarbonate cards: engraved greyscale portrait, sans values
		s.greyPhoto, s.softPhoto = true, true
		s.valueFont = fontLibSansBold
	case "kenya_national_id", "ke_national_id":
		s.valueFont = fontSansBold
		s.labelInk = rgb{150, 40, 40}
		s.accent = rgb{150, 30, 30}
	case "uganda_national_id_old":
		s.valueFont = fontCondBold
		s.labelInk = rgb{120, 60, 20}
		s.accent = rgb{130, 70, 10}
	case "uganda_driving_licence":
		s.valueFont = fontLibSansBold
		s.labelInk = rgb{140, 30, 30}
		s.accent = rgb{160, 40, 40}
	case "ghana_voter_id":
		s.valueFont = fontCondBold
		s.labelInk = rgb{120, 80, 10}
		s.accent = rgb{140, 90, 0}
	case "tanzania_national_id":
		s.labelInk = rgb{20, 90, 100}
		s.accent = rgb{10, 90, 100}
		s.valueFont = fontLibSansBold
	}
	if d.Kind == "passport" {
		s.passport = true
		s.greyPhoto = d.Config == "ke_passport"
		s.softPhoto = true
		s.valueFont = fontOCRB
		s.labelFont = fontLibSans
		s.labelInk = rgb{60, 60, 90}
		s.accent = rgb{40, 50, 110}
		s.radiusMM = 3.5
		s.laminateFx = 0.3
	}
	return s
}
