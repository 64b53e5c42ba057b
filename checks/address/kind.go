package address

import "strings"

// Document kinds. Utility bills and bank statements prove an address;
// the others are refused, as the commercial services rule: a mobile
// phone statement or a receipt is sent to anyone, anywhere.
const (
	KindElectricity = "electricity_bill"
	KindWater       = "water_bill"
	KindGas         = "gas_bill"
	KindLandline    = "landline_or_internet_bill"
	KindBank        = "bank_statement"
	KindMobile      = "mobile_phone_statement"
	KindReceipt     = "receipt"
	KindScreenshot  = "app_screenshot"
	KindUnknown     = "unknown"
)

// Accepted reports whether a kind proves an address.
func Accepted(kind string) bool {
	switch kind {
	case KindElectricity, KindWater, KindGas, KindLandline, KindBank:
		return true
	}
	return false
}

// kindWords are the words that give a document's kind away, in English,
// Kiswahili and French; a word's weight is how sure it makes the kind.
var kindWords = map[string]map[string]float64{
	KindElectricity: {"ELECTRICITY": 3, "KWH": 3, "POWER": 1.5, "UMEME": 3, "PREPAID TOKEN": 1, "ENERGY CHARGE": 2, "ELECTRICITE": 3, "FUEL ENERGY": 2},
	KindWater:       {"WATER": 2.5, "SEWERAGE": 3, "SANITATION": 2, "MAJI": 3, "M3": 1, "CUBIC METRES": 2, "EAU": 1.5},
	KindGas:         {"GAS SUPPLY": 3, "GAS BILL": 3, "GAS USAGE": 3, "LPG": 2, "THERMS": 3},
	KindLandline: {"BROADBAND": 3, "FIBRE": 2.5, "FIBER": 2.5, "INTERNET": 2, "LANDLINE": 3, "FIXED LINE": 3,
		"HOME INTERNET": 3, "MBPS": 2},
	KindBank: {"BANK STATEMENT": 4, "ACCOUNT STATEMENT": 3, "OPENING BALANCE": 3, "CLOSING BALANCE": 3,
		"BANK": 1, "IBAN": 2, "SWIFT": 1.5, "WITHDRAWAL": 1.5, "DEPOSIT": 1, "BRANCH": 0.5},
	KindMobile: {"AIRTIME": 3, "BUNDLE": 2, "MOBILE NUMBER": 2, "MOBILE STATEMENT": 4, "M-PESA": 3, "MPESA": 3,
		"SMS": 1.5, "ROAMING": 2, "PREPAID MOBILE": 3, "POSTPAID": 1, "DATA BUNDLE": 2},
	KindReceipt: {"RECEIPT": 3, "CASHIER": 2.5, "TILL": 1.5, "CHANGE DUE": 3, "THANK YOU FOR SHOPPING": 3,
		"QTY": 1.5, "SUBTOTAL": 1.5, "VAT INCL": 1},
}

// kindGate is the least evidence that names a kind: one strong word
// (weight 3) or two ordinary ones. Chosen on the synthetic bills' tuning
// layouts, where every genuine bill scores 5 or more.
const kindGate = 2.5

// classify names the document's kind from its text, with the words found.
func classify(text string) (string, []string) {
	up := " " + strings.ToUpper(text) + " "
	best, bestScore := KindUnknown, 0.0
	var bestWords []string
	for _, kind := range []string{KindElectricity, KindWater, KindGas, KindLandline, KindBank, KindMobile, KindReceipt} {
		score := 0.0
		var words []string
		for w, weight := range kindWords[kind] {
			if containsWord(up, w) {
				score += weight
				words = append(words, w)
			}
		}
		if score > bestScore {
			best, bestScore, bestWords = kind, score, words
		}
	}
	if bestScore < kindGate {
		return KindUnknown, nil
	}
	return best, bestWords
}

// refusedEvidence reports whether text has any word of a refused kind.
func refusedEvidence(text string) bool {
	up := " " + strings.ToUpper(text) + " "
	for _, kind := range []string{KindMobile, KindReceipt} {
		for w := range kindWords[kind] {
			if containsWord(up, w) {
				return true
			}
		}
	}
	return false
}

// containsWord finds w in up with no letter on either side.
func containsWord(up, w string) bool {
	for i := 0; ; {
		j := strings.Index(up[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before, after := up[j-1], byte(' ')
		if j+len(w) < len(up) {
			after = up[j+len(w)]
		}
		if !isLetter(before) && !isLetter(after) {
			return true
		}
		i = j + 1
	}
}

func isLetter(b byte) bool { return b >= 'A' && b <= 'Z' }
