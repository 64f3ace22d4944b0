package main

import "math/rand/v2"

// personName is one of the pool of the conversations' speakers.
type personName struct {
	name   string
	female bool
}

// speakerNames are the people the LoCoMo conversations are between. None
// is a speaker of the published locomo10.json.
var speakerNames = []personName{
	{"Priya", true}, {"Hannah", true}, {"Sofia", true}, {"Aisha", true}, {"Maya", true}, {"Grace", true},
	{"Elena", true}, {"Naomi", true}, {"Chloe", true}, {"Rachel", true}, {"Fatima", true}, {"Jasmine", true},
	{"Olivia", true}, {"Leah", true}, {"Tessa", true}, {"Mei", true}, {"Rosa", true}, {"Nadia", true},
	{"Ivy", true}, {"Lucia", true}, {"Brooke", true}, {"Zoe", true}, {"Keisha", true}, {"Anika", true},
	{"Marcus", false}, {"Daniel", false}, {"Omar", false}, {"Ethan", false}, {"Kenji", false}, {"Luis", false},
	{"Andre", false}, {"Tobias", false}, {"Raj", false}, {"Ben", false}, {"Gabriel", false}, {"Noah", false},
	{"Felix", false}, {"Mateo", false}, {"Isaac", false}, {"Darius", false}, {"Leo", false}, {"Hugo", false},
	{"Victor", false}, {"Caleb", false}, {"Theo", false}, {"Malik", false}, {"Jonah", false}, {"Arjun", false},
}

// splitNames shuffles the speakers once and gives each half of the
// LoCoMo data its own people: no speaker is in both files.
func splitNames() (tune, test []personName) {
	r := rand.New(rand.NewPCG(seedNames, 1))
	var women, men []personName
	for _, p := range shuffled(r, speakerNames) {
		if p.female {
			women = append(women, p)
		} else {
			men = append(men, p)
		}
	}
	half := func(xs []personName, i int) []personName { return xs[i*len(xs)/2 : (i+1)*len(xs)/2] }
	for i, dst := range []*[]personName{&tune, &test} {
		*dst = shuffled(r, append(append([]personName(nil), half(women, i)...), half(men, i)...))
	}
	return tune, test
}

// otherNames are the people the speakers talk about: siblings, friends,
// children, partners, dates, babies.
var otherNames = []personName{
	{"Ava", true}, {"Lily", true}, {"Emma", true}, {"Nora", true}, {"Ruby", true}, {"Iris", true},
	{"Clara", true}, {"Stella", true}, {"Hazel", true}, {"June", true}, {"Alice", true}, {"Mira", true},
	{"Pilar", true}, {"Dana", true}, {"Beth", true}, {"Yuki", true}, {"Sana", true}, {"Carmen", true},
	{"Talia", true}, {"Maggie", true}, {"Freya", true}, {"Amara", true}, {"Lena", true}, {"Willa", true},
	{"Owen", false}, {"Eli", false}, {"Milo", false}, {"Jack", false}, {"Henry", false}, {"Oscar", false},
	{"Wes", false}, {"Ravi", false}, {"Sean", false}, {"Marco", false}, {"Tariq", false}, {"Kai", false},
	{"Finn", false}, {"Dev", false}, {"Rowan", false}, {"Simon", false}, {"Abe", false}, {"Julian", false},
	{"Pete", false}, {"Hector", false}, {"Jamal", false}, {"Cole", false}, {"Ezra", false}, {"Micah", false},
}

// petNames name the pets the speakers adopt.
var petNames = []string{"Biscuit", "Miso", "Pepper", "Juniper", "Waffles", "Olive", "Mochi", "Bear", "Luna",
	"Pickles", "Ziggy", "Nugget", "Clementine", "Bowie", "Peaches", "Tofu", "Maple", "Rocket", "Dumpling",
	"Sprout", "Nacho", "Hazelnut", "Pixel", "Gus", "Fig", "Banjo", "Mango", "Scout", "Noodle", "Cosmo",
	"Poppy", "Tater", "Ollie", "Sushi", "Basil", "Kiwi", "Marble", "Captain", "Pretzel", "Pumpkin"}

// city is a place a speaker lives, with what world knowledge says of it.
type city struct {
	name, state, region string
	coast               string // "West Coast", "East Coast", "" (neither)
}

var cities = []city{
	{"Portland", "Oregon", "the Pacific Northwest", "West Coast"},
	{"Seattle", "Washington", "the Pacific Northwest", "West Coast"},
	{"Denver", "Colorado", "the Mountain West", ""},
	{"Austin", "Texas", "the South", ""},
	{"Chicago", "Illinois", "the Midwest", ""},
	{"Minneapolis", "Minnesota", "the Midwest", ""},
	{"Boston", "Massachusetts", "New England", "East Coast"},
	{"Philadelphia", "Pennsylvania", "the Northeast", "East Coast"},
	{"Atlanta", "Georgia", "the South", ""},
	{"Nashville", "Tennessee", "the South", ""},
	{"San Diego", "California", "Southern California", "West Coast"},
	{"Sacramento", "California", "Northern California", "West Coast"},
	{"Phoenix", "Arizona", "the Southwest", ""},
	{"Albuquerque", "New Mexico", "the Southwest", ""},
	{"Salt Lake City", "Utah", "the Mountain West", ""},
	{"Raleigh", "North Carolina", "the South", "East Coast"},
	{"Pittsburgh", "Pennsylvania", "the Northeast", ""},
	{"Milwaukee", "Wisconsin", "the Midwest", ""},
	{"Baltimore", "Maryland", "the Mid-Atlantic", "East Coast"},
	{"Richmond", "Virginia", "the Mid-Atlantic", "East Coast"},
	{"Tucson", "Arizona", "the Southwest", ""},
	{"Boise", "Idaho", "the Mountain West", ""},
	{"Madison", "Wisconsin", "the Midwest", ""},
	{"Savannah", "Georgia", "the South", "East Coast"},
	{"Columbus", "Ohio", "the Midwest", ""},
	{"Kansas City", "Missouri", "the Midwest", ""},
	{"New Orleans", "Louisiana", "the Gulf Coast", ""},
	{"Burlington", "Vermont", "New England", ""},
	{"Anchorage", "Alaska", "Alaska", ""},
	{"Honolulu", "Hawaii", "Hawaii", ""},
	{"Charleston", "South Carolina", "the South", "East Coast"},
	{"Spokane", "Washington", "the Pacific Northwest", ""},
	{"Asheville", "North Carolina", "the South", ""},
	{"Providence", "Rhode Island", "New England", "East Coast"},
	{"Santa Fe", "New Mexico", "the Southwest", ""},
	{"Duluth", "Minnesota", "the Midwest", ""},
}

// job is a speaker's work.
type job struct {
	title, place, verb string // "nurse", "the hospital", "nursing"
}

var jobs = []job{
	{"nurse", "the hospital", "nursing"},
	{"middle school science teacher", "school", "teaching"},
	{"line cook", "the restaurant", "cooking on the line"},
	{"accountant", "the firm", "accounting"},
	{"barista", "the café", "making coffee"},
	{"software developer", "the office", "writing software"},
	{"paralegal", "the law office", "paralegal work"},
	{"pharmacist", "the pharmacy", "working the pharmacy counter"},
	{"physical therapist", "the clinic", "physical therapy"},
	{"bank teller", "the bank", "working at the bank"},
	{"graphic designer", "the studio", "design work"},
	{"veterinary technician", "the animal hospital", "vet tech work"},
	{"librarian", "the library", "library work"},
	{"electrician", "the job site", "electrical work"},
	{"real estate agent", "open houses", "selling houses"},
	{"store manager", "the store", "retail management"},
	{"dental hygienist", "the dentist's office", "cleaning teeth"},
	{"social worker", "the agency", "social work"},
	{"mechanic", "the garage", "fixing cars"},
	{"HR coordinator", "the office", "HR work"},
	{"preschool teacher", "the preschool", "teaching little kids"},
	{"sous chef", "the kitchen", "running a kitchen"},
}

// newJob is a job a speaker changes to, with where and why.
type newJob struct {
	title, company, why, whyAns string
}

var newJobs = []newJob{
	{"UX designer", "a small design agency", "I was so burnt out, and I wanted work where I actually get to make things.", "{He} was burnt out and wanted more creative work"},
	{"project manager", "a solar energy startup", "Honestly I wanted to do something that matters to me, and clean energy does.", "{He} wanted work that matters to {him}, in clean energy"},
	{"data analyst", "a hospital network", "I taught myself SQL at night for a year, so it finally paid off.", "{He} had taught {himself} SQL and wanted to use it"},
	{"high school counselor", "a public high school", "I kept realizing the best part of my week was helping people through stuff.", "{He} wanted a job helping people"},
	{"park ranger", "the state parks department", "I was tired of fluorescent lights. Now my office is literally a forest.", "{He} wanted to work outdoors"},
	{"bakery owner", "a tiny storefront on Main Street", "My sourdough hobby got out of hand in the best way.", "{His} baking hobby grew into a business"},
	{"flight attendant", "a regional airline", "I wanted to see more of the world while I'm young.", "{He} wanted to travel more"},
	{"nurse practitioner", "a family clinic", "I finished the degree I'd been chipping away at for three years.", "{He} finished an advanced nursing degree"},
	{"marketing manager", "an outdoor gear company", "The pay was way better and the team seemed genuinely kind.", "Better pay and a kinder team"},
	{"personal trainer", "a neighborhood gym", "Fitness changed my life, so I figured why not make it my job.", "Fitness had changed {his} life"},
	{"grant writer", "a literacy nonprofit", "I wanted my writing to do some good.", "{He} wanted {his} writing to do some good"},
	{"photographer", "a wedding photography studio", "The side gig was paying more than the day job, so the math was easy.", "{His} photography side gig was earning more than {his} old job"},
}
