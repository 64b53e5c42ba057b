package sanctionsbench

// Ordinary names of several regions, for the non-listed half of the query
// set. They are common names, so some share tokens with listed names
// (MOHAMMED, IBRAHIM, DANIEL): exactly the screening load a Kenyan or
// Nigerian onboarding flow sees.
var (
	kenyanFirst = []string{"Wanjiru", "Achieng", "Otieno", "Kamau", "Njeri", "Wambui", "Kipchoge", "Chebet",
		"Mwangi", "Akinyi", "Omondi", "Wafula", "Nyambura", "Kiptoo", "Jepkosgei", "Muthoni", "Odhiambo",
		"Wekesa", "Auma", "Kibet", "Faith", "Grace", "Mercy", "Brian", "Kevin", "Dennis", "Collins", "Esther",
		"Joseph", "Mary", "Peter", "James", "John", "Daniel", "Samuel", "David", "Ann", "Lucy", "Caroline",
		"Cynthia", "Emmanuel", "Victor", "Stephen", "Purity", "Winnie", "Ruth", "Hassan", "Amina", "Fatuma",
		"Abdi", "Halima", "Salim", "Mohamed", "Zawadi", "Baraka", "Imani", "Juma", "Rehema", "Said"}
	kenyanLast = []string{"Otieno", "Kamau", "Mwangi", "Ochieng", "Wanjiku", "Kariuki", "Njoroge", "Kiprop",
		"Mutua", "Onyango", "Maina", "Kimani", "Odhiambo", "Wekesa", "Chelimo", "Korir", "Rotich", "Kiplagat",
		"Nyaga", "Muriuki", "Githinji", "Macharia", "Owino", "Okoth", "Barasa", "Wanyama", "Simiyu", "Keter",
		"Langat", "Cheruiyot", "Mutiso", "Musyoka", "Kilonzo", "Ndungu", "Gitau", "Kinyua", "Omolo", "Ouma",
		"Oduor", "Juma", "Abdullahi", "Hassan", "Mohamed", "Ali", "Noor", "Farah", "Mwakio", "Mwamburi",
		"Chege", "Karanja", "Wairimu", "Njenga", "Mbugua", "Kiprono", "Too", "Sang", "Bett", "Tanui"}
	nigerianFirst = []string{"Chukwuemeka", "Oluwaseun", "Ngozi", "Adebayo", "Aisha", "Ibrahim", "Chinedu",
		"Funmilayo", "Tunde", "Yusuf", "Emeka", "Obinna", "Adaeze", "Kelechi", "Bola", "Folake", "Musa",
		"Abubakar", "Fatima", "Zainab", "Halima", "Uche", "Ifeanyi", "Olumide", "Segun", "Temitope", "Bukola",
		"Chiamaka", "Amaka", "Nnamdi", "Babajide", "Oluwatosin", "Damilola", "Kehinde", "Taiwo", "Yetunde",
		"Aliyu", "Sani", "Bello", "Umar", "Hadiza", "Maryam", "Usman", "Garba", "Abdullahi", "Suleiman",
		"Godwin", "Blessing", "Precious", "Victoria", "Michael", "Patience", "Gift", "Sunday", "Joy", "Ahmed"}
	nigerianLast = []string{"Okonkwo", "Adeyemi", "Ogunleye", "Balogun", "Eze", "Nwosu", "Okafor", "Adebayo",
		"Bello", "Abubakar", "Ibrahim", "Mohammed", "Yusuf", "Danjuma", "Olawale", "Ogundipe", "Akinola",
		"Chukwu", "Obi", "Nwachukwu", "Okeke", "Onyekachi", "Adeleke", "Oyelaran", "Fashola", "Ojo", "Oni",
		"Aminu", "Lawal", "Garba", "Suleiman", "Usman", "Sani", "Shehu", "Abdullahi", "Bakare", "Ikenna",
		"Uzor", "Agbaje", "Ayodele", "Olaniyan", "Odukoya", "Ekwueme", "Igwe", "Anyanwu", "Nnadi", "Ugwu",
		"Mustapha", "Tijani", "Babangida", "Kolawole", "Oyewole", "Adewale", "Umeh", "Dike", "Madu"}
	englishFirst = []string{"James", "Oliver", "Emma", "Sophie", "Daniel", "Grace", "Thomas", "Jack", "Harry",
		"George", "Charlotte", "Amelia", "Olivia", "Emily", "Jessica", "Lucy", "William", "Henry", "Edward",
		"Samuel", "Joseph", "David", "Michael", "Sarah", "Rebecca", "Hannah", "Laura", "Rachel", "Andrew",
		"Matthew", "Christopher", "Benjamin", "Alexander", "Katherine", "Elizabeth", "Victoria", "Peter",
		"Robert", "Richard", "Anne", "Margaret", "Helen", "Paul", "Mark", "Simon", "Claire", "Louise", "Ian"}
	englishLast = []string{"Smith", "Jones", "Taylor", "Brown", "Williams", "Wilson", "Johnson", "Davies",
		"Robinson", "Wright", "Thompson", "Evans", "Walker", "White", "Roberts", "Green", "Hall", "Wood",
		"Jackson", "Clarke", "Patel", "Khan", "Lewis", "Harris", "Martin", "Cooper", "King", "Baker", "Hill",
		"Turner", "Morris", "Ward", "Moore", "Clark", "Allen", "Young", "Scott", "Mitchell", "Carter",
		"Phillips", "Edwards", "Parker", "Collins", "Stewart", "Murphy", "Cook", "Bell", "Bailey", "Fletcher"}
	businessHead = []string{"Otieno", "Lakeside", "Savannah", "Kilimanjaro", "Safari", "Harambee", "Jubilee",
		"Sunrise", "Greenfield", "Eastlands", "Westgate", "Riverside", "Baraka", "Umoja", "Nyota", "Lagos",
		"Abuja", "Niger Delta", "Ikeja", "Kano", "Eko", "Zenith", "Unity", "Crown", "Royal", "Golden Gate",
		"Highland", "Coastal", "Mombasa", "Nakuru", "Kisumu", "Eldoret", "Pinnacle", "Summit", "Evergreen",
		"Bluewater", "Silverline", "Oakwood", "Redhill", "Northbridge", "Kamau", "Adebayo", "Okafor", "Grace",
		"Daniel", "Emma", "Faith", "Mercy", "Victory", "Hope"}
	businessWords = []string{"Trading", "Hardware", "Logistics", "Holdings", "Enterprises", "Investments",
		"Agencies", "Supplies", "Construction", "Pharmacy", "Motors", "Foods", "Farm Produce", "Transport",
		"Consultants", "Technologies", "Properties", "Travel", "Printers", "Electricals", "General Merchants",
		"Shipping", "Energy", "Microfinance", "Sacco", "Academy", "Hotel", "Bakery", "Textiles", "Security Services"}
	businessSuffix = []string{"Ltd", "Limited", "LLC", "Co.", "Company Limited", "PLC", "Enterprises", "Group",
		"Nigeria Ltd", "Kenya Limited", "& Sons", "Inc.", "Corp", ""}
)
