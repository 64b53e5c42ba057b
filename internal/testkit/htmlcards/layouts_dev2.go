package htmlcards

import (
	"math"

	"github.com/tambua/tambua/idv"
)

// The dev2 templates. Written, like dev's, from the definitions (their
// fields, sides, labels, MRZ, barcode) and public knowledge of the real
// documents, but set the way label-value cards are: a caption cell and a
// value cell a row, the photo at the right on most ID-1 cards, and the
// card's arrangement (photo side, table, inline captions or captions
// above, two short fields a row or one) drawn per card. The field block
// is placed by the builder below from the space the header, the photo
// and the pictures leave, so every draw stays inside the card; the page
// script rejects any that does not.

// sideLayout is the side of d in style s; dev2 follows the card's
// arrangement, the other styles have one template per side.
func sideLayout(s Style, d *idv.DocumentDefinition, side string, lang []string, a arrangement) (sideDoc, bool) {
	if s == Dev2 {
		return dev2Layout(d, side, lang, a)
	}
	return layout(s, d, side, lang)
}

// capWidth estimates caption c's width in mm in the card's look: about
// 0.6 em a letter (Lato's capitals; lower case is narrower) plus the
// letter spacing.
func (a arrangement) capWidth(c string) float64 {
	return float64(len([]rune(c))) * (0.6 + a.capSpacing) * a.capPx / pxPerMM
}

// capLines is how many lines caption c takes in a column at most maxW mm
// wide: whole words wrap, so a line holds a little less than maxW.
func (a arrangement) capLines(c string, maxW float64) int {
	w := a.capWidth(c)
	if w <= maxW {
		return 1
	}
	return int(math.Ceil(w * 1.2 / maxW))
}

// rowHeight is the height (mm) a row of fields takes in mode: a value
// line and the gap under it; a table row as tall as its longest caption
// wrapped in its column (capMax mm wide); in "below" the caption over
// the value.
func (a arrangement) rowHeight(r []string, mode string, capMax float64) float64 {
	switch mode {
	case "below":
		return a.capLine + a.line + a.gap
	case "right":
		return a.line + a.gap
	}
	hgt := a.line
	for _, f := range r {
		name, _ := fieldName(f)
		hgt = max(hgt, float64(a.capLines(a.labels[name], capMax))*a.capLine*0.92)
	}
	return hgt + a.tableGap
}

// fieldBlock sets rows of fields in the box (x, y, w, h). Rows of two
// are pairs of short fields; they are split into a row each when the
// card draws that and the rows fit. The card's mode gives way to a
// table when its captions would not fit it (inline captions of several
// languages), and a table keeps its pairs when one field a row is too
// tall; the page script judges the rest, and a card that still does not
// fit draws another arrangement (Generator.Sample).
func (a arrangement) fieldBlock(x, y, w, h float64, rows ...[]string) blk {
	var singles [][]string
	for _, r := range rows {
		for _, f := range r {
			singles = append(singles, row(f))
		}
	}
	// the caption columns' widths (mm): page.go's table (0.3 of the
	// card) and the dev2 look's two-pair table
	one, two := 0.3*a.cardW, 0.16*a.cardW
	if a.cardW > 100 {
		two = 0.2 * a.cardW
	}
	fits := func(rs [][]string, mode string, capMax float64) bool {
		t := 0.0
		for _, r := range rs {
			t += a.rowHeight(r, mode, capMax)
		}
		return t <= h
	}
	captionsWithin := func(rs [][]string, share float64) bool {
		for _, r := range rs {
			for _, f := range r {
				name, _ := fieldName(f)
				if a.capWidth(a.labels[name]) > w*share/float64(len(r)) {
					return false
				}
			}
		}
		return true
	}
	switch {
	case a.mode == "right" && fits(singles, "right", 0) && captionsWithin(singles, 0.45):
		// inline captions take room from the value: one field a row
		return fields(x, y, w, h, "right", singles...)
	case a.mode == "below" && fits(rows, "below", 0) && captionsWithin(rows, 1.1):
		return fields(x, y, w, h, "below", rows...)
	case !a.pairs && fits(singles, "table", one), !fits(rows, "table", two) && fits(singles, "table", one):
		return fields(x, y, w, h, "table", singles...)
	}
	b := fields(x, y, w, h, "table", rows...)
	if len(rows) < len(singles) {
		b.cls = "two"
	}
	return b
}

// header is a card's top band: an emblem at one end and up to two lines
// of text beside it.
func (a arrangement) header(W, y, h float64, lines []string, classes string) []blk {
	ew := h * 0.93
	if a.emblemRight {
		return []blk{
			text(3, y, W-6-ew-2, h, classes, "left", lines...),
			deco("emblem", W-3-ew, y, ew, h),
		}
	}
	return []blk{
		deco("emblem", 3, y, ew, h),
		text(3+ew+2, y, W-6-ew-2, h, classes, "right", lines...),
	}
}

// idFront is an ID-1 front: the header, the photo on the card's side with
// what stands under it (signature, chip, stamp), and the fields in the
// rest of the card between top and bottom.
type idFront struct {
	head        []string
	headCls     string
	flagTop     bool
	flagBottom  bool
	photoW      float64
	photoH      float64
	under       []string // kinds under the photo, top to bottom
	holo        bool
	rows        [][]string
	sigByFields bool // the holder's signature under the fields, not the photo
}

func (a arrangement) idFront(f idFront) []blk {
	W := id1W
	var bl []blk
	top := 1.2
	if f.flagTop {
		bl = append(bl, deco("flag", 0, 0, W, 1.5))
		top = 2.3
	}
	bl = append(bl, a.header(W, top, 7, f.head, f.headCls)...)
	body := top + 8.3
	bottom := id1H - 2.5
	if f.flagBottom {
		bl = append(bl, deco("flag", 0, id1H-1.8, W, 1.8))
		bottom = id1H - 3.2
	}
	pw, ph := f.photoW, f.photoH
	if pw == 0 {
		pw, ph = 21, 27
	}
	px, fx := 3.0, 3+pw+3.5
	if a.photoRight {
		px, fx = W-3-pw, 3.0
	}
	fw := W - 3 - pw - 3.5 - 3
	bl = append(bl, deco("photo", px, body, pw, ph))
	if f.holo {
		hx := px + pw - 7
		if a.photoRight {
			hx = px - 2
		}
		bl = append(bl, deco("holo", hx, body+ph-8, 9, 9))
	}
	y := body + ph + 1.2
	for _, k := range f.under {
		switch k {
		case "sig":
			bl = append(bl, deco("sig", px, y, pw, 7.5))
			y += 8
		case "chip":
			bl = append(bl, deco("chip", px+(pw-11)/2, y, 11, 8.5))
			y += 9
		case "stamp":
			bl = append(bl, deco("stamp", px+(pw-11)/2, y, 11, 11))
			y += 11.5
		}
	}
	fh := bottom - body
	if f.sigByFields {
		fh -= 8.5
		bl = append(bl, deco("sig", fx+fw-26, bottom-7.5, 26, 7.5))
	}
	bl = append(bl, a.fieldBlock(fx, body, fw, fh, f.rows...))
	return bl
}

// dev2Layout is the side of d in the dev2 style for arrangement a.
func dev2Layout(d *idv.DocumentDefinition, side string, lang []string, a arrangement) (sideDoc, bool) {
	W, H := id1W, id1H
	front := side == "front"
	var bl []blk
	switch d.Config {
	case "kenya_national_id", "ke_national_id":
		mrzBack := d.Config == "ke_national_id"
		if front {
			rows := [][]string{row("serial_number", "national_id_number"), row("full_name"), row("date_of_birth", "sex"),
				row("place_of_birth"), row("x:place_of_issue"), row("date_of_issue")}
			if mrzBack {
				rows = [][]string{row("national_id_number", "serial_number"), row("full_name"), row("date_of_birth", "sex"),
					row("place_of_birth"), row("place_of_issue"), row("date_of_issue")}
			}
			bl = a.idFront(idFront{head: []string{"REPUBLIC OF KENYA", "JAMHURI YA KENYA"}, headCls: "country country",
				flagBottom: true, holo: true, under: []string{"sig"}, rows: rows})
		} else if mrzBack {
			sx := 4.0
			if a.photoRight {
				sx = 52
			}
			bl = []blk{
				a.fieldBlock(4, 2.5, 78, 18.5, row("district", "division"), row("location", "sub_location")),
				deco("sig", sx, 21.5, 26, 7.5),
				text(sx, 29.5, 30, 3, "small", "left", "PRINCIPAL REGISTRAR'S SIGN."),
				mrzID1,
			}
		} else {
			px, fx := 63.0, 4.0
			if a.photoRight {
				px, fx = 4, 27
			}
			bl = []blk{
				a.fieldBlock(fx, 4, 55, 27, row("district"), row("division"), row("location"), row("sub_location")),
				deco("print", px, 4, 18.5, 24),
				deco("sig", fx, 34, 30, 8),
				text(fx, 42.5, 52, 3, "small", "left", "PRINCIPAL REGISTRAR'S SIGN."),
				deco("flag", 0, id1H-1.8, W, 1.8),
			}
		}
	case "ke_maisha_card":
		if front {
			bl = a.idFront(idFront{head: []string{"REPUBLIC OF KENYA", "MAISHA CARD"}, headCls: "country title",
				flagBottom: true, under: []string{"chip"}, photoW: 20, photoH: 26,
				rows: [][]string{row("surname"), row("given_names"), row("date_of_birth", "sex"), row("nationality", "place_of_birth"),
					row("date_of_issue", "date_of_expiry"), row("maisha_number", "card_number")}})
		} else {
			qx, sx := 4.0, 28.0
			if a.photoRight {
				qx, sx = 62, 6
			}
			bl = []blk{
				deco("barcode", qx, 3.5, 19.5, 19.5),
				deco("sig", sx, 4, 30, 9),
				text(sx, 13.5, 30, 3, "small", "left", "Holder's signature"),
				text(sx, 18, 32, 8, "small small", "left", "If found, return to any", "Huduma Centre"),
				mrzID1,
			}
		}
	case "nigeria_national_id":
		if front {
			bl = a.idFront(idFront{head: []string{"FEDERAL REPUBLIC OF NIGERIA", "NATIONAL IDENTITY CARD"}, headCls: "country small",
				under: []string{"chip"}, photoW: 20, photoH: 26,
				rows: [][]string{row("surname"), row("given_names"), row("date_of_birth", "sex"), row("nationality"),
					row("nin"), row("date_of_issue", "date_of_expiry")}})
		} else {
			fx, sx := 4.0, 50.0
			if a.photoRight {
				fx, sx = 38, 4
			}
			bl = []blk{
				a.fieldBlock(fx, 3.5, 44, 7, row("document_number")),
				deco("sig", sx, 3, 30, 9),
				text(4, 14, 78, 8, "small small", "left", "NATIONAL IDENTITY MANAGEMENT COMMISSION", "This card remains the property of the Federal Government"),
				mrzID1,
			}
		}
	case "ghana_voter_id":
		if front {
			bl = a.idFront(idFront{head: []string{"ELECTORAL COMMISSION OF GHANA", "VOTER ID CARD"}, headCls: "country title",
				flagTop: true, under: []string{"sig"}, photoW: 20, photoH: 25,
				rows: [][]string{row("voter_id_number"), row("surname"), row("other_names"), row("sex", "date_of_birth"),
					row("polling_station_code"), row("date_of_registration")}})
		} else {
			qx, tx := 60.0, 4.0
			if a.photoRight {
				qx, tx = 6, 30
			}
			bl = []blk{
				deco("barcode", qx, 6, 21, 21),
				text(tx, 6, 52, 16, "small small small", "left", "THIS CARD IS THE PROPERTY OF THE", "ELECTORAL COMMISSION OF GHANA", "IF FOUND, RETURN TO ANY EC OFFICE"),
				deco("stamp", tx, 32, 13, 13),
				deco("flag", 0, id1H-1.6, W, 1.6),
			}
		}
	case "south_africa_id":
		if front {
			bl = a.idFront(idFront{head: []string{"REPUBLIC OF SOUTH AFRICA", "IDENTITY CARD"}, headCls: "country small",
				holo: true, under: []string{"sig"}, photoW: 20, photoH: 26,
				rows: [][]string{row("surname"), row("names"), row("sex", "nationality"), row("identity_number"),
					row("date_of_birth", "country_of_birth"), row("status")}})
		} else {
			bx, fx := 41.0, 4.0
			if a.photoRight {
				bx, fx = 4, 48
			}
			bl = []blk{
				a.fieldBlock(fx, 4, 34, 7, row("date_of_issue")),
				deco("barcode", bx, 3, 41, 20),
				text(fx, 14, 34, 8, "small small", "left", "Department of", "Home Affairs"),
				mrzID1,
			}
		}
	case "tanzania_national_id":
		if front {
			bl = a.idFront(idFront{head: []string{"JAMHURI YA MUUNGANO WA TANZANIA", "KITAMBULISHO CHA TAIFA"}, headCls: "country small",
				flagTop: true, under: []string{"sig"}, photoW: 20, photoH: 26,
				rows: [][]string{row("first_name"), row("middle_name"), row("surname"), row("date_of_birth", "sex"), row("nin")}})
		} else {
			fx, sx := 4.0, 54.0
			if a.photoRight {
				fx, sx = 32, 4
			}
			bl = []blk{
				text(4, 2, 78, 4, "small", "left", "MAMLAKA YA VITAMBULISHO VYA TAIFA (NIDA)"),
				a.fieldBlock(fx, 7, 50, 18, row("date_of_issue"), row("date_of_expiry")),
				deco("sig", sx, 9, 26, 10),
				deco("barcode", 4, 28, 78, 22),
			}
		}
	case "uganda_driving_licence":
		if front {
			bl = a.idFront(idFront{head: []string{"THE REPUBLIC OF UGANDA", "DRIVING PERMIT"}, headCls: "country title",
				flagTop: true, under: []string{"sig"}, photoW: 20, photoH: 25,
				rows: [][]string{row("surname"), row("given_names"), row("date_of_birth", "sex"), row("nationality", "licence_class"),
					row("licence_number"), row("date_of_issue", "date_of_expiry")}})
		} else {
			bl = []blk{
				text(4, 2.5, 50, 24, "small small small small small", "left", "CLASS  CATEGORY OF VEHICLE",
					"A  Motor cycles", "B  Light motor vehicles", "C  Medium goods vehicles", "D  Light omnibus"),
				deco("stamp", 64, 4, 16, 16),
				deco("barcode", 4, 30, 78, 20),
			}
		}
	case "uganda_national_id_new", "uganda_national_id_old":
		old := d.Config == "uganda_national_id_old"
		if front {
			under := []string{"chip"}
			if old {
				under = []string{"stamp"}
			}
			bl = a.idFront(idFront{head: []string{"THE REPUBLIC OF UGANDA", "NATIONAL ID CARD"}, headCls: "country title",
				flagBottom: true, under: under, photoW: 20, photoH: 25, sigByFields: true,
				rows: [][]string{row("surname"), row("given_name"), row("nationality", "sex"), row("date_of_birth"),
					row("nin"), row("card_number", "date_of_expiry")}})
		} else if !old {
			bl = []blk{
				a.fieldBlock(4, 3, 78, 30, row("village", "parish"), row("sub_county", "county"), row("district")),
				mrzID1,
			}
		} else {
			fx, px := 4.0, 63.0
			if a.photoRight {
				fx, px = 25, 4
			}
			bl = []blk{
				a.fieldBlock(fx, 3, 56, 27, row("village"), row("parish"), row("sub_county"), row("county"), row("district")),
				deco("print", px, 3, 18, 24),
				deco("barcode", 4, 33, 78, 18),
			}
		}
	case "generic_id_card":
		if front {
			bl = a.idFront(idFront{head: []string{"UTOPIA", genericTitle("id", lang)}, headCls: "country small",
				under: []string{"sig"}, photoW: 20, photoH: 26,
				rows: [][]string{row("document_number"), row("surname"), row("given_names"), row("sex", "nationality"),
					row("date_of_birth"), row("date_of_expiry"), row("document_type", "issuing_state")}})
		} else {
			bl = []blk{
				deco("emblem", 4, 4, 14, 14),
				text(22, 5, 60, 12, "small small", "left", "UTOPIA", genericTitle("id", lang)),
				mrzID1,
			}
		}
	case "ke_passport", "generic_passport":
		W, H = td3W, td3H
		head := []string{"UTOPIA", genericTitle("passport", lang)}
		sigW := 32.0
		if d.Config == "ke_passport" {
			// the Kenyan page's ghost image beside the signature
			head = []string{"REPUBLIC OF KENYA / JAMHURI YA KENYA", "PASSPORT / PASIPOTI"}
			sigW = 21
			bl = append(bl, deco("ghost", 27.5, 57, 9.5, 10.5))
		}
		bl = append(bl, a.header(W, 2.5, 10, head, "country title")...)
		bl = append(bl,
			deco("photo", 5, 15, 32, 41),
			deco("sig", 5, 57.5, sigW, 8.5),
			a.fieldBlock(41, 14, 80, 52, row("document_type", "issuing_state"), row("passport_number"), row("surname"),
				row("given_names"), row("nationality", "sex"), row("date_of_birth"), row("place_of_birth"),
				row("date_of_issue", "date_of_expiry"), row("authority")),
			blk{x: 5, y: 68.5, w: 115, h: 16.5, kind: "mrz"},
		)
	case "generic_td2":
		W, H = td2W, td2H
		px, fx := 4.0, 33.0
		if a.photoRight {
			px, fx = W-4-25, 4
		}
		bl = a.header(W, 2, 9, []string{"UTOPIA", genericTitle("td2", lang)}, "country small")
		bl = append(bl,
			deco("photo", px, 13, 25, 32),
			deco("sig", px, 46, 25, 7.5),
			a.fieldBlock(fx, 12.5, 68, 41, row("document_type", "issuing_state"), row("document_number"),
				row("surname"), row("given_names"), row("nationality", "sex"), row("date_of_birth"), row("date_of_expiry")),
			blk{x: 4.5, y: 55, w: 96, h: 16, kind: "mrz"},
		)
	}
	if bl == nil {
		return sideDoc{}, false
	}
	return sideDoc{wmm: W, hmm: H, blocks: bl}, true
}
