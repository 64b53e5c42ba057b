package lists

import (
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// countryAliases are the names lists use that CLDR spells differently.
var countryAliases = map[string]string{
	"DEMOCRATIC REPUBLIC OF THE CONGO": "CD", "CONGO DEMOCRATIC REPUBLIC": "CD",
	"CONGO KINSHASA": "CD", "DRC": "CD", "ZAIRE": "CD",
	"REPUBLIC OF THE CONGO": "CG", "CONGO": "CG", "CONGO BRAZZAVILLE": "CG",
	"UNITED REPUBLIC OF TANZANIA": "TZ", "SYRIAN ARAB REPUBLIC": "SY",
	"IRAN ISLAMIC REPUBLIC OF": "IR", "ISLAMIC REPUBLIC OF IRAN": "IR",
	"KOREA NORTH": "KP", "NORTH KOREA": "KP", "DEMOCRATIC PEOPLE S REPUBLIC OF KOREA": "KP",
	"DEMOCRATIC PEOPLES REPUBLIC OF KOREA": "KP", "KOREA SOUTH": "KR", "SOUTH KOREA": "KR",
	"REPUBLIC OF KOREA": "KR", "RUSSIAN FEDERATION": "RU", "BURMA": "MM",
	"LAO PEOPLE S DEMOCRATIC REPUBLIC": "LA", "LAOS": "LA", "VIET NAM": "VN",
	"BOLIVIA PLURINATIONAL STATE OF": "BO", "VENEZUELA BOLIVARIAN REPUBLIC OF": "VE",
	"UNITED KINGDOM OF GREAT BRITAIN AND NORTHERN IRELAND": "GB", "UK": "GB",
	"GREAT BRITAIN": "GB", "UNITED STATES OF AMERICA": "US", "USA": "US",
	"PALESTINIAN": "PS", "STATE OF PALESTINE": "PS", "PALESTINE": "PS",
	"WEST BANK": "PS", "GAZA": "PS", "COTE D IVOIRE": "CI", "IVORY COAST": "CI",
	"TURKIYE": "TR", "CZECH REPUBLIC": "CZ", "MACEDONIA": "MK",
	"THE FORMER YUGOSLAV REPUBLIC OF MACEDONIA": "MK", "MOLDOVA REPUBLIC OF": "MD",
	"REPUBLIC OF MOLDOVA": "MD", "SWAZILAND": "SZ", "CAPE VERDE": "CV",
	"EAST TIMOR": "TL", "BOSNIA HERZEGOVINA": "BA", "HONG KONG": "HK",
	"MACAU": "MO", "MACAO": "MO", "KOSOVO": "XK", "SOUTH SUDAN": "SS",
	"LIBYAN ARAB JAMAHIRIYA": "LY", "SAINT KITTS AND NEVIS": "KN",
	"ST KITTS AND NEVIS": "KN", "ST VINCENT AND THE GRENADINES": "VC",
	"ST LUCIA": "LC", "THE GAMBIA": "GM", "GAMBIA THE": "GM", "BAHAMAS THE": "BS",
	"THE BAHAMAS": "BS", "MICRONESIA FEDERATED STATES OF": "FM",
	"BRUNEI DARUSSALAM": "BN", "UNITED ARAB EMIRATES": "AE", "UAE": "AE",
}

// Demonyms OFAC remarks and MRZ-adjacent text use for nationality.
var demonyms = map[string]string{
	"AFGHAN": "AF", "IRANIAN": "IR", "IRAQI": "IQ", "SYRIAN": "SY", "LEBANESE": "LB",
	"RUSSIAN": "RU", "CHINESE": "CN", "KENYAN": "KE", "NIGERIAN": "NG", "SOMALI": "SO",
	"SUDANESE": "SD", "YEMENI": "YE", "SAUDI": "SA", "PAKISTANI": "PK", "EGYPTIAN": "EG",
	"LIBYAN": "LY", "BRITISH": "GB", "AMERICAN": "US", "MEXICAN": "MX", "COLOMBIAN": "CO",
	"VENEZUELAN": "VE", "CUBAN": "CU", "UGANDAN": "UG", "TANZANIAN": "TZ", "RWANDAN": "RW",
	"CONGOLESE": "CD", "JORDANIAN": "JO", "KUWAITI": "KW", "QATARI": "QA", "TURKISH": "TR",
	"GERMAN": "DE", "FRENCH": "FR", "BELARUSIAN": "BY", "UKRAINIAN": "UA", "NORTH KOREAN": "KP",
	"SPANISH": "ES",
}

var (
	countryOnce  sync.Once
	countryNames map[string]string
)

func buildCountries() {
	countryNames = map[string]string{}
	en := display.English.Regions()
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			code := string([]rune{a, b})
			r, err := language.ParseRegion(code)
			if err != nil || !r.IsCountry() {
				continue
			}
			// ParseRegion canonicalises deprecated codes (BU -> MM); keep
			// only codes that are their own canonical form.
			if r.String() != code {
				continue
			}
			countryNames[countryKey(en.Name(r))] = code
			countryNames[r.ISO3()] = code
			countryNames[code] = code
		}
	}
	for k, v := range countryAliases {
		countryNames[k] = v
	}
	for k, v := range demonyms {
		countryNames[k] = v
	}
	// MRZ codes that are not ISO 3166 alpha-3.
	countryNames["D"] = "DE"
	countryNames["GBD"], countryNames["GBN"], countryNames["GBO"], countryNames["GBS"], countryNames["GBP"] = "GB", "GB", "GB", "GB", "GB"
	countryNames["UNK"] = "XK"
}

func countryKey(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToUpper(s) {
		if unicode.IsLetter(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		} else {
			space = true
		}
	}
	return foldASCII(b.String())
}

// foldASCII drops the accents of the few letters country names carry.
func foldASCII(s string) string {
	return strings.NewReplacer("É", "E", "Ô", "O", "Ç", "C", "Ã", "A", "Í", "I", "Ü", "U").Replace(s)
}

// CountryCode returns the ISO 3166-1 alpha-2 code for a country name,
// demonym, alpha-2 or alpha-3 code (including MRZ codes such as D and
// GBR), or "" when it knows none.
func CountryCode(s string) string {
	countryOnce.Do(buildCountries)
	k := countryKey(s)
	if k == "" {
		return ""
	}
	if c, ok := countryNames[k]; ok {
		return c
	}
	// "Iran (Islamic Republic of)" and the like.
	if i := strings.Index(k, " OF"); i > 0 {
		if c, ok := countryNames[k[:i]]; ok {
			return c
		}
	}
	return ""
}
