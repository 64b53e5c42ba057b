package htmlcards

// book is the names and places of one country, written for this corpus
// (not synth's lists): common surnames and given names as they appear on
// the country's documents, and administrative places at several levels.
type book struct {
	surnames      []string
	male, female  []string
	towns         []string // districts, towns, places of birth
	areas         []string // divisions, counties, sub-counties
	villages      []string // sub-locations, parishes, villages
	authority     []string
	nationalWord  string // what a passport prints as nationality
	countryPrints string // the country name as the card prints it
}

var books = map[string]*book{
	"KEN": {
		surnames: []string{"OTIENO", "KAMAU", "MWANGI", "ODHIAMBO", "KIPROP", "MUTUA", "NJOROGE", "WAFULA", "OMONDI",
			"KARIUKI", "KILONZO", "OCHIENG", "WEKESA", "MUTISYA", "KIBET", "ONYANGO", "MAINA", "GITAU", "ABDI", "CHERUIYOT",
			"NDUNG'U", "WAMALWA", "OKOTH", "KOSGEI", "MUSYOKA", "NYAGA"},
		male: []string{"JAMES", "PETER", "DAVID", "SAMUEL", "JOSEPH", "DANIEL", "BRIAN", "STEPHEN", "COLLINS", "DENNIS",
			"KIPCHUMBA", "MUTHOMI", "OUMA", "WANYAMA", "KARANJA", "FELIX", "VICTOR", "ALFRED"},
		female: []string{"MARY", "GRACE", "FAITH", "MERCY", "JOYCE", "ESTHER", "LUCY", "WANJIRU", "AKINYI", "NJERI",
			"WAMBUI", "CHEPKOECH", "NAFULA", "MUTHONI"},
		towns: []string{"NAIROBI", "MOMBASA", "KISUMU", "NAKURU", "ELDORET", "MACHAKOS", "KAKAMEGA", "NYERI", "MERU",
			"KITUI", "GARISSA", "BUNGOMA", "KERICHO", "EMBU", "THIKA", "NAROK", "KILIFI", "HOMA BAY", "MURANG'A", "TRANS NZOIA",
			"VIHIGA", "SIAYA", "MIGORI", "KAJIADO"},
		areas: []string{"KASARANI", "WESTLANDS", "LANGATA", "MAKADARA", "EMBAKASI", "KABETE", "LIMURU", "MATHIRA",
			"BUTERE", "MUMIAS", "RONGAI", "KESSES", "MWINGI", "IGEMBE", "GATUNDU", "NYANDO"},
		villages: []string{"KAWANGWARE", "GITHURAI", "KAHAWA", "KARIOBANGI", "MATHARE", "RUAKA", "KIKUYU", "GACHIE",
			"SHIBUYE", "EMUHAYA", "KAPSOYA", "LANGAS", "KIAMBAA", "NDUMBERI", "MUKURWE-INI", "KIGANJO"},
		authority:     []string{"DIRECTORATE OF IMMIGRATION", "GOVERNMENT OF KENYA", "REGISTRAR OF PERSONS"},
		nationalWord:  "KENYAN",
		countryPrints: "REPUBLIC OF KENYA",
	},
	"UGA": {
		surnames: []string{"OKELLO", "MUSOKE", "KATO", "MUGISHA", "TUMUSIIME", "NSUBUGA", "SSEMPALA", "KIIZA", "WANDERA",
			"OPIO", "AKENA", "BYARUHANGA", "KAWEESI", "TUKAHIRWA", "ASIIMWE", "MUKASA", "OKOT", "LUBEGA", "NAMBOOZE", "ATUHAIRE"},
		male: []string{"ROBERT", "MOSES", "FRANCIS", "ISAAC", "RONALD", "GEOFFREY", "EMMANUEL", "PATRICK", "DENIS",
			"SSALONGO", "KIGONGO", "OBURA", "TWINOMUJUNI"},
		female: []string{"SARAH", "PROSSY", "AGNES", "HARRIET", "JOAN", "BRENDA", "CHRISTINE", "NAKATO", "BABIRYE",
			"NAMATOVU", "KYOMUHENDO", "AKELLO"},
		towns: []string{"KAMPALA", "WAKISO", "MUKONO", "GULU", "MBARARA", "JINJA", "LIRA", "MBALE", "MASAKA", "ARUA",
			"KABALE", "HOIMA", "FORT PORTAL", "SOROTI", "TORORO", "KASESE", "BUSHENYI"},
		areas: []string{"KYADONDO", "BUSIRO", "MAWOKOTA", "KOOKI", "BUGANGAIZI", "NAKAWA", "KAWEMPE", "RUBAGA", "MAKINDYE",
			"NANSANA", "KIRA", "BUKEDEA", "BUHWEJU", "ARINGA"},
		villages: []string{"NTINDA", "BUKOTO", "KIWATULE", "NAGURU", "KYEBANDO", "KISASI", "KULAMBIRO", "NAJJERA",
			"KIREKA", "BWEYOGERERE", "KIREKA B", "MPERERWE", "KAWANDA", "NAMUGONGO"},
		authority:     []string{"MINISTRY OF INTERNAL AFFAIRS", "DCIC KAMPALA"},
		nationalWord:  "UGANDAN",
		countryPrints: "THE REPUBLIC OF UGANDA",
	},
	"NGA": {
		surnames: []string{"ADEYEMI", "OKONKWO", "BELLO", "IBRAHIM", "OKAFOR", "ADEBAYO", "NWOSU", "EZE", "ABUBAKAR",
			"OGUNLEYE", "EKWUEME", "DANJUMA", "BALOGUN", "AKINOLA", "UCHE", "MOHAMMED", "OYELARAN", "NNAMDI"},
		male: []string{"CHINEDU", "OLUWASEGUN", "EMEKA", "TUNDE", "MUSA", "OBINNA", "ADEWALE", "YUSUF", "IKECHUKWU",
			"BABATUNDE", "SANI"},
		female: []string{"NGOZI", "FUNMILAYO", "AISHA", "CHIAMAKA", "BOLANLE", "HAUWA", "ADAEZE", "YETUNDE", "ZAINAB"},
		towns: []string{"LAGOS", "IBADAN", "KANO", "ABUJA", "ENUGU", "KADUNA", "ONITSHA", "OWERRI", "ABEOKUTA", "JOS",
			"BENIN CITY", "SOKOTO", "ILORIN"},
		nationalWord:  "NIGERIAN",
		countryPrints: "FEDERAL REPUBLIC OF NIGERIA",
	},
	"GHA": {
		surnames: []string{"MENSAH", "OWUSU", "BOATENG", "ASANTE", "OSEI", "AGYEMANG", "ADDO", "APPIAH", "AMOAH", "OFORI",
			"DARKO", "QUAYE", "ANSAH", "TETTEH", "FRIMPONG", "ACQUAH", "NKRUMAH", "AMPOFO"},
		male: []string{"KWAME", "KOFI", "KWABENA", "YAW", "KOJO", "KWESI", "NANA", "EBENEZER", "SAMUEL", "FIIFI",
			"ATO", "KWADWO"},
		female:        []string{"AMA", "AKOSUA", "ABENA", "AFUA", "ADWOA", "EFUA", "YAA", "GIFTY", "PATIENCE", "ESI", "AKUA"},
		towns:         []string{"ACCRA", "KUMASI", "TAMALE", "TAKORADI", "CAPE COAST", "HO", "KOFORIDUA", "SUNYANI", "TEMA", "BOLGATANGA"},
		nationalWord:  "GHANAIAN",
		countryPrints: "ELECTORAL COMMISSION OF GHANA",
	},
	"ZAF": {
		surnames: []string{"NKOSI", "DLAMINI", "NDLOVU", "KHUMALO", "MOKOENA", "MAHLANGU", "VAN DER MERWE", "BOTHA",
			"PILLAY", "NAIDOO", "MOLEFE", "SITHOLE", "MTHEMBU", "JACOBS", "VAN WYK", "LE ROUX", "RADEBE", "MASEKO"},
		male: []string{"THABO", "SIPHO", "BONGANI", "JOHANNES", "PIETER", "MANDLA", "LWAZI", "RIAAN", "TSHEPO", "KAGISO",
			"NEO", "WILLEM"},
		female:        []string{"NOMVULA", "THANDI", "LERATO", "ZANELE", "ANNELIE", "PALESA", "NALEDI", "ZODWA", "KARABO", "MARIKE"},
		towns:         []string{"JOHANNESBURG", "DURBAN", "PRETORIA", "CAPE TOWN", "SOWETO", "POLOKWANE", "BLOEMFONTEIN"},
		nationalWord:  "SOUTH AFRICAN",
		countryPrints: "REPUBLIC OF SOUTH AFRICA",
	},
	"TZA": {
		surnames: []string{"MWAKYUSA", "KIMARO", "MUSHI", "MASSAWE", "LYIMO", "SHIRIMA", "MREMA", "MWAMBA", "SALIM",
			"MAGESA", "CHACHA", "MWITA", "MBWAMBO", "KISANGA", "MFINANGA", "NDOSI", "TEMBA"},
		male: []string{"BARAKA", "JUMA", "HAMISI", "RAJABU", "EMMANUEL", "GODFREY", "ABDALLAH", "SALUM", "ISSA", "ELIA",
			"DAUDI", "OMARI"},
		female:        []string{"NEEMA", "REHEMA", "AMINA", "ZAWADI", "MWANAIDI", "HAPPINESS", "EVA", "PENDO", "MWAJUMA", "HADIJA"},
		towns:         []string{"DAR ES SALAAM", "DODOMA", "ARUSHA", "MWANZA", "MBEYA", "MOROGORO", "TANGA", "MOSHI", "IRINGA"},
		nationalWord:  "TANZANIAN",
		countryPrints: "JAMHURI YA MUUNGANO WA TANZANIA",
	},
	// Utopia is ICAO 9303's specimen state: the generic definitions stand
	// for any issuer, so their holders have European-style names.
	"UTO": {
		surnames: []string{"ERIKSSON", "MARTIN", "HOLM", "VIRTANEN", "LINDQVIST", "ANDERSEN", "MOREAU", "DUBOIS",
			"FERREIRA", "SANTOS", "NOVAK", "KOWALSKI", "HUBER", "KELLER", "O'BRIEN", "DE LA CRUZ", "SCHMIDT-BERG", "ROSSI"},
		male:   []string{"LARS", "PIERRE", "JOAO", "MARCO", "TOMAS", "HENRIK", "LUCAS", "MATEO", "JAN", "OLIVER"},
		female: []string{"ANNA", "MARIA", "ELENA", "KATRIN", "SOFIA", "INGRID", "CLAIRE", "LUCIA", "MARTA", "EVA"},
		towns: []string{"ZENITH", "UTOPIA CITY", "NORTHPORT", "LAKESIDE", "ST MARTIN", "NEW HAVEN", "WESTBROOK",
			"EASTFIELD"},
		authority:     []string{"MINISTRY OF INTERIOR", "PASSPORT OFFICE ZENITH", "UTOPIAN AUTHORITY", "CONSULATE NORTHPORT"},
		nationalWord:  "UTOPIAN",
		countryPrints: "UTOPIA",
	},
}

// bookFor is the country's book; unknown countries use Utopia's.
func bookFor(country string) *book {
	if b := books[country]; b != nil {
		return b
	}
	return books["UTO"]
}
