package htmlcards

import (
	"fmt"

	"github.com/tambua/tambua/idv"
)

// The templates: where each style prints what on each document. They are
// written from public knowledge of how each real document is arranged
// (and, for dev, close to it; eval rearranges it as another print run or
// another issuer would), never from the definitions' zones, which are
// the project's own drawing. Sizes are in mm: ID-1 85.6 x 54, TD2 105 x
// 74, the TD3 passport page 125 x 88. A cell "-" is left empty; "x:name"
// prints a value the definition does not name.

func fields(x, y, w, h float64, mode string, rows ...[]string) blk {
	return blk{x: x, y: y, w: w, h: h, kind: "fields", mode: mode, rows: rows}
}

func text(x, y, w, h float64, cls, align string, lines ...string) blk {
	return blk{x: x, y: y, w: w, h: h, kind: "text", cls: cls, align: align, lines: lines}
}

func deco(kind string, x, y, w, h float64) blk { return blk{x: x, y: y, w: w, h: h, kind: kind} }

func row(names ...string) []string { return names }

// id1 is the ID-1 card (ISO/IEC 7810), td2 and td3 the larger formats.
const (
	id1W, id1H = 85.6, 54.0
	td2W, td2H = 105.0, 74.0
	td3W, td3H = 125.0, 88.0
)

// mrzID1 is the TD1 MRZ band at the foot of an ID-1 side: three lines of
// 30 characters at 2.54 mm.
var mrzID1 = blk{x: 3.5, y: 35, w: 78.6, h: 17, kind: "mrz"}

// layout is the side of d in style s, or ok false when the style has no
// template for it (a test requires one for every built-in definition).
func layout(s Style, d *idv.DocumentDefinition, side string, lang []string) (sideDoc, bool) {
	var bl []blk
	W, H := id1W, id1H
	front := side == "front"
	switch s {
	case Dev:
		switch d.Config {
		case "kenya_national_id":
			if front {
				bl = []blk{
					text(3, 1.2, 34, 6, "country", "left", "JAMHURI YA KENYA"),
					deco("emblem", 39.3, 0.6, 7, 7.5),
					text(48.6, 1.2, 34, 6, "country", "right", "REPUBLIC OF KENYA"),
					deco("photo", 3, 9.5, 21.5, 28.5),
					deco("holo", 16, 31, 11, 11),
					fields(27, 8.5, 56, 38.5, "below", row("serial_number", "national_id_number"), row("full_name"), row("date_of_birth", "sex"),
						row("place_of_birth", "x:place_of_issue"), row("date_of_issue", "-")),
					deco("sig", 57, 40, 25, 7.5),
					text(57, 47.6, 25, 2.6, "small", "left", "HOLDER'S SIGN."),
					deco("flag", 0, 51.8, W, 2.2),
				}
			} else {
				bl = []blk{
					fields(4, 5, 52, 27, "right", row("district"), row("division"), row("location"), row("sub_location")),
					deco("print", 62, 4, 19, 25),
					deco("sig", 6, 36, 30, 8),
					text(4, 44.5, 48, 3, "small", "left", "PRINCIPAL REGISTRAR'S SIGN."),
					deco("flag", 0, 51.8, W, 2.2),
				}
			}
		case "ke_national_id":
			if front {
				bl = []blk{
					text(3, 1.2, 34, 6, "country", "left", "JAMHURI YA KENYA"),
					deco("emblem", 39.3, 0.6, 7, 7.5),
					text(48.6, 1.2, 34, 6, "country", "right", "REPUBLIC OF KENYA"),
					deco("photo", 3, 9.5, 21.5, 28.5),
					deco("holo", 16, 31, 11, 11),
					fields(27, 8.5, 56, 38.5, "below", row("national_id_number", "serial_number"), row("full_name"), row("date_of_birth", "sex"),
						row("place_of_birth", "place_of_issue"), row("date_of_issue", "-")),
					deco("sig", 57, 40, 25, 7.5),
					text(57, 47.6, 25, 2.6, "small", "left", "HOLDER'S SIGN."),
					deco("flag", 0, 51.8, W, 2.2),
				}
			} else {
				bl = []blk{
					fields(4, 3, 78, 24, "below", row("district", "division"), row("location", "sub_location")),
					text(4, 28, 60, 3.5, "small", "left", "PRINCIPAL REGISTRAR'S SIGN."),
					mrzID1,
				}
			}
		case "ke_maisha_card":
			if front {
				bl = []blk{
					deco("emblem", 3, 0.8, 7, 7.5),
					text(11, 1, 45, 7, "country small", "left", "REPUBLIC OF KENYA", "JAMHURI YA KENYA"),
					text(55, 1, 28, 7, "title", "right", "MAISHA CARD"),
					deco("photo", 3, 10, 20, 25.5),
					deco("chip", 6, 38, 11, 8.5),
					fields(25.5, 9.5, 58, 42, "below", row("surname"), row("given_names"),
						row("date_of_birth", "sex:0.6", "nationality:0.8"), row("place_of_birth"),
						row("date_of_issue", "date_of_expiry"), row("maisha_number", "card_number")),
					deco("flag", 0, 52.4, W, 1.6),
				}
			} else {
				bl = []blk{
					deco("barcode", 4, 4, 20, 20),
					deco("sig", 30, 5, 30, 10),
					text(30, 15.5, 30, 3, "small", "left", "Holder's signature"),
					text(27, 20, 56, 9, "small small", "left", "If found, please return to the nearest", "Huduma Centre or police station."),
					mrzID1,
				}
			}
		case "ke_passport":
			W, H = td3W, td3H
			bl = []blk{
				text(4, 2.5, 84, 10, "small country", "left", "EAST AFRICAN COMMUNITY", "REPUBLIC OF KENYA  JAMHURI YA KENYA"),
				text(88, 2.5, 33, 10, "title small", "right", "PASSPORT", "PASIPOTI"),
				deco("photo", 4, 15, 32, 41),
				fields(40, 14, 82, 51, "below", row("document_type:0.6", "issuing_state:0.8", "passport_number:1.6"),
					row("surname"), row("given_names"), row("nationality", "date_of_birth"),
					row("sex:0.5", "place_of_birth:1.5"), row("date_of_issue", "authority"), row("date_of_expiry", "-")),
				deco("ghost", 104, 58.5, 12, 9),
				deco("sig", 5, 57, 30, 8),
				{x: 5, y: 68.5, w: 115, h: 16.5, kind: "mrz"},
			}
		case "generic_passport":
			W, H = td3W, td3H
			bl = []blk{
				text(4, 2.5, 70, 10, "country small", "left", "UTOPIA", fmt.Sprintf("%s", genericTitle("passport", lang))),
				deco("emblem", 110, 2, 10, 10),
				deco("photo", 4, 15, 32, 41),
				fields(40, 14, 82, 51, "below", row("document_type:0.6", "issuing_state:0.8", "passport_number:1.6"),
					row("surname"), row("given_names"), row("nationality", "date_of_birth"),
					row("sex:0.5", "place_of_birth:1.5"), row("date_of_issue", "authority"), row("date_of_expiry", "-")),
				deco("sig", 5, 57, 30, 8),
				{x: 5, y: 68.5, w: 115, h: 16.5, kind: "mrz"},
			}
		case "generic_id_card":
			if front {
				bl = []blk{
					text(3, 1, 46, 7, "country small", "left", "UTOPIA", genericTitle("id", lang)),
					fields(52, 1.2, 31, 6.5, "below", row("document_number")),
					deco("photo", 3, 10, 21, 27),
					fields(27, 10, 56, 34.5, "below", row("surname"), row("given_names"),
						row("date_of_birth", "sex:0.6"), row("nationality:0.8", "date_of_expiry"),
						row("document_type:0.6", "issuing_state")),
					deco("sig", 27, 45, 28, 7),
					deco("stamp", 3, 39, 12, 12),
				}
			} else {
				bl = []blk{
					deco("emblem", 4, 4, 14, 14),
					text(22, 6, 60, 10, "small small", "left", "UTOPIA", genericTitle("id", lang)),
					mrzID1,
				}
			}
		case "generic_td2":
			W, H = td2W, td2H
			bl = []blk{
				text(4, 2, 70, 9, "country small", "left", "UTOPIA", genericTitle("td2", lang)),
				deco("emblem", 92, 2, 9, 9),
				deco("photo", 4, 13, 25, 32),
				fields(33, 11.5, 68, 42, "below", row("document_type", "issuing_state"), row("document_number", "nationality"),
					row("surname"), row("given_names"), row("sex:0.6", "date_of_birth:1.4"), row("date_of_expiry")),
				deco("sig", 4, 46, 25, 7),
				{x: 4.5, y: 55, w: 96, h: 16, kind: "mrz"},
			}
		case "ghana_voter_id":
			if front {
				bl = []blk{
					deco("flag", 0, 0, W, 1.6),
					deco("emblem", 2.5, 2.4, 7, 7.5),
					text(10.5, 2.2, 62, 7.5, "country title", "left", "ELECTORAL COMMISSION OF GHANA", "VOTER ID CARD"),
					deco("photo", 3, 11, 20, 25),
					fields(25, 11, 58, 30, "below", row("surname"), row("other_names"),
						row("sex:0.5", "date_of_birth:1.2"), row("polling_station_code", "date_of_registration")),
					fields(25, 42.5, 58, 8, "right", row("voter_id_number")),
					deco("sig", 3, 38, 20, 8),
				}
			} else {
				bl = []blk{
					deco("barcode", 32.8, 5, 20, 20),
					text(4, 28, 78, 14, "small small small", "center", "THIS CARD IS THE PROPERTY OF THE", "ELECTORAL COMMISSION OF GHANA", "IF FOUND, RETURN TO THE NEAREST EC OFFICE"),
					deco("stamp", 66, 40, 13, 13),
					deco("flag", 0, 52.4, W, 1.6),
				}
			}
		case "nigeria_national_id":
			if front {
				bl = []blk{
					deco("emblem", 3, 0.8, 7, 7.5),
					text(11, 1, 72, 7, "country small", "left", "FEDERAL REPUBLIC OF NIGERIA", "NATIONAL IDENTITY CARD"),
					deco("photo", 3, 10, 20, 26),
					deco("chip", 6, 39, 11, 8.5),
					fields(25.5, 9.5, 57.5, 33, "below", row("surname"), row("given_names"),
						row("date_of_birth:1.2", "sex:0.5", "nationality:0.8"), row("date_of_issue", "date_of_expiry")),
					fields(25.5, 44, 57.5, 7, "right", row("nin")),
				}
			} else {
				bl = []blk{
					fields(4, 3, 44, 8, "below", row("document_number")),
					deco("sig", 50, 4, 30, 10),
					text(4, 14, 78, 8, "small small", "left", "NATIONAL IDENTITY MANAGEMENT COMMISSION", "Verify at www.nimc.gov.ng"),
					mrzID1,
				}
			}
		case "south_africa_id":
			if front {
				bl = []blk{
					text(3, 1, 60, 7, "country small", "left", "REPUBLIC OF SOUTH AFRICA", "IDENTITY CARD"),
					deco("emblem", 75, 0.8, 8, 8),
					deco("photo", 3, 10, 20, 26),
					fields(25, 9, 58, 38, "below", row("surname"), row("names"),
						row("sex:0.5", "nationality:0.6", "date_of_birth:1.3"),
						row("identity_number:1.3", "country_of_birth:0.7"), row("status")),
					deco("sig", 3, 38, 20, 8),
					deco("holo", 66, 38, 12, 12),
				}
			} else {
				bl = []blk{
					fields(4, 4, 34, 8, "below", row("date_of_issue")),
					deco("barcode", 41, 3, 41, 20),
					text(4, 14, 34, 8, "small small", "left", "Department of", "Home Affairs"),
					mrzID1,
				}
			}
		case "tanzania_national_id":
			if front {
				bl = []blk{
					deco("flag", 0, 0, W, 1.4),
					text(3, 1.8, 38, 7, "small country", "left", "JAMHURI YA MUUNGANO WA TANZANIA", "KITAMBULISHO CHA TAIFA"),
					deco("emblem", 76, 1.5, 7, 7.5),
					deco("photo", 3, 11, 20, 26),
					fields(25, 10, 58, 41, "below", row("first_name", "middle_name"), row("surname"),
						row("date_of_birth", "sex:0.7"), row("nin")),
					deco("sig", 3, 39, 20, 8),
				}
			} else {
				bl = []blk{
					text(4, 2, 78, 4, "small", "left", "NIDA  TANZANIA"),
					fields(4, 7, 48, 18, "below", row("date_of_issue"), row("date_of_expiry")),
					deco("sig", 55, 8, 27, 10),
					deco("barcode", 4, 28, 78, 22),
				}
			}
		case "uganda_driving_licence":
			if front {
				bl = []blk{
					deco("flag", 0, 0, W, 1.5),
					deco("emblem", 3, 2, 7, 7.5),
					text(11, 2, 72, 7, "country title", "left", "THE REPUBLIC OF UGANDA", "DRIVING PERMIT"),
					deco("photo", 3, 11, 20, 25),
					fields(25, 10.5, 58, 40, "below", row("surname"), row("given_names"),
						row("date_of_birth:1.2", "sex:0.5", "nationality:0.7"),
						row("licence_number:1.3", "licence_class:0.8"), row("date_of_issue", "date_of_expiry")),
					deco("sig", 3, 38, 20, 8),
				}
			} else {
				bl = []blk{
					text(4, 2, 78, 26, "small small small small small small", "left", "CATEGORIES",
						"A   MOTOR CYCLES", "B   LIGHT MOTOR VEHICLES", "C   MEDIUM GOODS VEHICLES",
						"D   LIGHT OMNIBUS", "CM  MEDIUM OMNIBUS"),
					deco("barcode", 4, 30, 78, 20),
				}
			}
		case "uganda_national_id_new", "uganda_national_id_old":
			old := d.Config == "uganda_national_id_old"
			if front {
				bl = []blk{
					deco("emblem", 3, 0.8, 7, 7.5),
					text(11, 1, 72, 7, "country title", "left", "THE REPUBLIC OF UGANDA", "NATIONAL ID CARD"),
					deco("photo", 3, 10, 20, 26),
					fields(25, 9.5, 58, 41, "below", row("surname"), row("given_name"),
						row("nationality:0.7", "sex:0.5", "date_of_birth:1.3"), row("nin:1.5", "card_number"),
						row("date_of_expiry", "-")),
					deco("sig", 58, 44, 25, 7),
					deco("flag", 0, 52.4, W, 1.6),
				}
				if !old {
					bl = append(bl, deco("chip", 6, 39, 11, 8.5))
				} else {
					bl = append(bl, deco("stamp", 6, 38, 12, 12))
				}
			} else if !old {
				bl = []blk{
					fields(4, 3, 78, 29, "below", row("village", "parish"), row("sub_county", "county"), row("district", "-")),
					mrzID1,
				}
			} else {
				bl = []blk{
					fields(4, 3, 56, 28, "right", row("village"), row("parish"), row("sub_county"), row("county"), row("district")),
					deco("print", 64, 3, 18, 25),
					deco("barcode", 4, 33, 78, 18),
				}
			}
		}
	case Eval:
		switch d.Config {
		case "kenya_national_id", "ke_national_id":
			if front {
				rows := [][]string{row("serial_number"), row("national_id_number"), row("full_name"), row("date_of_birth"),
					row("sex"), row("place_of_birth"), row("date_of_issue")}
				if d.Config == "ke_national_id" {
					rows = [][]string{row("national_id_number"), row("serial_number"), row("full_name"), row("date_of_birth"),
						row("sex"), row("place_of_birth"), row("place_of_issue"), row("date_of_issue")}
				}
				bl = []blk{
					deco("flag", 0, 0, 1.4, H).withCls("v"),
					text(3.5, 1.2, 60, 8, "country small", "left", "REPUBLIC OF KENYA", "JAMHURI YA KENYA"),
					deco("emblem", 74, 1, 9, 9),
					fields(3.5, 10.5, 57, 41, "table", rows...),
					deco("photo", 62, 11.5, 21, 27),
					deco("sig", 62, 41, 21, 8),
				}
			} else {
				bl = []blk{
					fields(4, 4, 78, 20, "below", row("district", "division"), row("location", "sub_location")),
					deco("stamp", 62, 30, 18, 18),
					deco("sig", 6, 32, 30, 10),
					text(6, 43, 40, 3, "small", "left", "Principal Registrar"),
				}
				if d.Config == "ke_national_id" {
					bl = []blk{
						fields(4, 2.5, 78, 29, "right", row("district"), row("division"), row("location"), row("sub_location")),
						deco("print", 66, 3, 15, 21),
						mrzID1,
					}
				}
			}
		case "ke_maisha_card":
			if front {
				bl = []blk{
					text(3, 1, 55, 7.5, "country small", "left", "REPUBLIC OF KENYA", "MAISHA CARD"),
					deco("emblem", 74, 0.8, 9, 9),
					fields(3, 10, 58, 41.5, "below", row("surname"), row("given_names"),
						row("date_of_birth", "sex:0.6", "nationality:0.8"), row("place_of_birth:1.2", "date_of_issue"),
						row("date_of_expiry", "card_number"), row("maisha_number", "-")),
					deco("photo", 63, 11, 20, 26),
					deco("ghost", 66, 40, 11, 12),
				}
			} else {
				bl = []blk{
					deco("barcode", 62, 3, 20, 20),
					deco("sig", 4, 4, 34, 12),
					text(4, 17, 50, 4, "small", "left", "SAHIHI / SIGNATURE"),
					mrzID1,
				}
			}
		case "ke_passport", "generic_passport":
			W, H = td3W, td3H
			head := text(4, 2, 117, 10, "country title", "center", "JAMHURI YA KENYA / REPUBLIC OF KENYA", "PASIPOTI / PASSPORT")
			if d.Config == "generic_passport" {
				head = text(4, 2, 117, 10, "country title", "center", "UTOPIA", genericTitle("passport", lang))
			}
			bl = []blk{
				head,
				deco("photo", 4, 14, 30, 39),
				fields(38, 13.5, 84, 53, "table", row("document_type", "issuing_state"), row("passport_number"),
					row("surname"), row("given_names"), row("nationality", "sex"), row("date_of_birth"),
					row("place_of_birth"), row("date_of_issue"), row("date_of_expiry"), row("authority")),
				deco("ghost", 8, 55, 20, 12),
				{x: 5, y: 68.5, w: 115, h: 16.5, kind: "mrz"},
			}
		case "generic_id_card":
			if front {
				bl = []blk{
					deco("flag", 0, 0, W, 1.2),
					text(3, 1.8, 58, 7, "country small", "left", "UTOPIA", genericTitle("id", lang)),
					deco("emblem", 75, 1.5, 8, 8),
					fields(3, 10, 57, 42, "table", row("document_type"), row("issuing_state"), row("document_number"),
						row("surname"), row("given_names"), row("nationality"), row("sex"), row("date_of_birth"), row("date_of_expiry")),
					deco("photo", 62, 11, 21, 27),
					deco("sig", 62, 41, 21, 9),
				}
			} else {
				bl = []blk{
					text(4, 4, 56, 8, "small small", "left", "UTOPIA", genericTitle("id", lang)),
					deco("stamp", 66, 3, 15, 15),
					mrzID1,
				}
			}
		case "generic_td2":
			W, H = td2W, td2H
			bl = []blk{
				text(4, 2, 70, 9, "country small", "left", "UTOPIA", genericTitle("td2", lang)),
				fields(4, 12, 66, 42, "table", row("document_type"), row("issuing_state"), row("document_number"),
					row("surname"), row("given_names"), row("nationality", "sex"), row("date_of_birth"), row("date_of_expiry")),
				deco("photo", 74, 12, 27, 34),
				deco("sig", 74, 47, 27, 7),
				{x: 4.5, y: 55, w: 96, h: 16, kind: "mrz"},
			}
		case "ghana_voter_id":
			if front {
				bl = []blk{
					deco("flag", 0, 0, 1.6, H).withCls("v"),
					text(4, 1.2, 62, 8, "country title", "left", "ELECTORAL COMMISSION OF GHANA", "VOTER ID CARD"),
					deco("emblem", 74, 1, 9, 9),
					fields(4, 11, 56, 40, "table", row("voter_id_number"), row("surname"), row("other_names"),
						row("sex"), row("date_of_birth"), row("polling_station_code"), row("date_of_registration")),
					deco("photo", 62, 11.5, 21, 27),
					deco("sig", 62, 41, 21, 9),
				}
			} else {
				bl = []blk{
					deco("barcode", 4, 5, 24, 24),
					text(31, 6, 52, 20, "small small small small", "left", "This card remains the property of the",
						"Electoral Commission of Ghana.", "If found, hand it in at any", "Electoral Commission office."),
					deco("flag", 0, 50, W, 4).withCls(""),
				}
			}
		case "nigeria_national_id":
			if front {
				bl = []blk{
					text(3, 1, 60, 8, "country small", "left", "FEDERAL REPUBLIC OF NIGERIA", "NATIONAL IDENTITY CARD"),
					deco("emblem", 74, 0.8, 9, 9),
					fields(3, 10.5, 58, 41, "table", row("surname"), row("given_names"), row("nin"), row("date_of_birth"),
						row("sex", "nationality"), row("date_of_issue"), row("date_of_expiry")),
					deco("photo", 63, 11, 20, 26),
					deco("chip", 66, 40, 12, 9),
				}
			} else {
				bl = []blk{
					fields(4, 3, 50, 12, "below", row("document_number")),
					deco("emblem", 68, 3, 12, 12),
					text(4, 16, 60, 5, "small", "left", "National Identity Management Commission"),
					mrzID1,
				}
			}
		case "south_africa_id":
			if front {
				bl = []blk{
					deco("emblem", 3, 1, 8, 8),
					text(12, 1, 71, 8, "country small", "left", "REPUBLIC OF SOUTH AFRICA", "IDENTITY CARD"),
					fields(3, 10.5, 58, 41, "table", row("surname"), row("names"), row("sex"), row("nationality"),
						row("identity_number"), row("date_of_birth"), row("country_of_birth"), row("status")),
					deco("photo", 63, 11, 20, 26),
					deco("sig", 63, 40, 20, 9),
				}
			} else {
				bl = []blk{
					deco("barcode", 4, 3, 46, 20),
					fields(53, 4, 29, 10, "below", row("date_of_issue")),
					text(53, 15, 29, 6, "small", "left", "Home Affairs"),
					mrzID1,
				}
			}
		case "tanzania_national_id":
			if front {
				bl = []blk{
					deco("emblem", 3, 1, 8, 8),
					text(12, 1, 71, 8, "country small", "left", "JAMHURI YA MUUNGANO WA TANZANIA", "KITAMBULISHO CHA TAIFA"),
					fields(3, 10.5, 59, 40, "right", row("first_name"), row("middle_name"), row("surname"),
						row("date_of_birth"), row("sex"), row("nin")),
					deco("photo", 64, 11, 19.5, 26),
					deco("flag", 64, 40, 19.5, 9).withCls("v"),
				}
			} else {
				bl = []blk{
					deco("barcode", 4, 3, 78, 21),
					fields(4, 27, 78, 10, "below", row("date_of_issue", "date_of_expiry")),
					deco("sig", 4, 40, 30, 10),
					text(50, 43, 32, 5, "small", "right", "NIDA · TANZANIA"),
				}
			}
		case "uganda_driving_licence":
			if front {
				bl = []blk{
					text(3, 1, 60, 8, "country title", "left", "THE REPUBLIC OF UGANDA", "DRIVING PERMIT"),
					deco("emblem", 74, 0.8, 9, 9),
					fields(3, 10.5, 58, 41, "table", row("licence_number"), row("surname"), row("given_names"),
						row("date_of_birth", "sex"), row("nationality", "licence_class"), row("date_of_issue"), row("date_of_expiry")),
					deco("photo", 63, 11, 20, 26),
					deco("sig", 63, 40, 20, 9),
				}
			} else {
				bl = []blk{
					deco("barcode", 4, 3, 78, 18),
					text(4, 24, 38, 24, "small small small small", "left", "A  MOTOR CYCLES", "B  LIGHT VEHICLES",
						"C  MEDIUM GOODS", "D  LIGHT OMNIBUS"),
					text(44, 24, 38, 24, "small small small small", "left", "CM  MEDIUM OMNIBUS", "CH  HEAVY GOODS",
						"DL  HEAVY OMNIBUS", "G  ENGINEERING PLANT"),
				}
			}
		case "uganda_national_id_new", "uganda_national_id_old":
			old := d.Config == "uganda_national_id_old"
			if front {
				bl = []blk{
					text(3, 1, 60, 8, "country title", "left", "THE REPUBLIC OF UGANDA", "NATIONAL ID CARD"),
					deco("emblem", 74, 0.8, 9, 9),
					fields(3, 10.5, 58, 41, "table", row("surname"), row("given_name"), row("nationality", "sex"),
						row("date_of_birth"), row("nin"), row("card_number"), row("date_of_expiry")),
					deco("photo", 63, 11, 20, 26),
					deco("sig", 63, 40, 20, 9),
				}
			} else if !old {
				bl = []blk{
					fields(4, 2.5, 78, 29, "right", row("village", "parish"), row("sub_county", "county"), row("district", "-")),
					mrzID1,
				}
			} else {
				bl = []blk{
					deco("barcode", 4, 3, 78, 17),
					fields(4, 23, 78, 28, "below", row("village", "parish"), row("sub_county", "county"), row("district", "-")),
				}
			}
		}
	}
	if bl == nil {
		return sideDoc{}, false
	}
	return sideDoc{wmm: W, hmm: H, blocks: bl}, true
}

func (b blk) withCls(c string) blk { b.cls = c; return b }

// genericTitle is a generic document's title in the card's languages.
func genericTitle(kind string, lang []string) string {
	titles := map[string]map[string]string{
		"passport": {"en": "PASSPORT", "fr": "PASSEPORT", "es": "PASAPORTE", "pt": "PASSAPORTE", "de": "REISEPASS", "sw": "PASIPOTI"},
		"id":       {"en": "IDENTITY CARD", "fr": "CARTE D'IDENTITE", "es": "DOCUMENTO DE IDENTIDAD", "pt": "BILHETE DE IDENTIDADE", "de": "PERSONALAUSWEIS", "sw": "KITAMBULISHO"},
		"td2":      {"en": "IDENTITY CARD", "fr": "CARTE D'IDENTITE", "es": "TARJETA DE IDENTIDAD", "pt": "CARTAO DE IDENTIDADE", "de": "AUSWEIS", "sw": "KITAMBULISHO"},
	}[kind]
	out := ""
	for i, l := range lang {
		if i > 1 {
			break
		}
		if out != "" {
			out += " / "
		}
		out += titles[l]
	}
	return out
}
