package main

// topic is one kind of fact a LoCoMo speaker tells: its options (the
// particulars, "k=v; k=v"), the scripts that tell it (lines as in
// talk.go, tags naming what each line reveals), later mentions that hold
// no answer, and the question templates asked of it.
//
// A question template is "C[tags] question => answer", C the LoCoMo
// category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop), flags
// after it (u: only when the speaker has this one fact of the kind; x: only
// when no later fact replaced it), tags the lines holding the evidence. In
// questions, {N} is the speaker's name and {he}, {his}, {him} the
// speaker's pronouns; {date} is the event's date resolved against the
// session's date (the line says "{when}": "last Saturday", "two weeks
// ago"). upd templates may name the replaced fact's values as {prev.x}.
type topic struct {
	kind   string
	group  string // facts of a group are listed together by multi-hop questions
	when   string // "day", "span": an event dated by a relative phrase; "next": a plan; "": undated
	repeat bool   // one speaker may tell two facts of this kind
	needs  []string
	opts   []string
	// scripts tell the fact; later mention it again without an answer.
	scripts [][]string
	later   [][]string
	qs      []string
	upd     []string // asked of a fact that replaces an earlier one (prev)
	vp, ing string   // "adopted {pname}", "adopting {pname}": the event in other questions
	avoid   []string // relative dates that don't fit the scripts ("this morning")
	months  []int    // the months it may be told in (an option's "months=10,11" narrows it)
	item    string   // the fact in a list ("{act}"), and the tag of its line
	itemTag string
	afterq  string // "Where did {N} travel after {a.ing}?": multi-hop with an earlier event a
}

// groupQuestions are asked of a speaker's facts of one group together.
var groupQuestions = map[string][]string{
	"activity": {"What activities has {N} taken up?", "What does {N} do in {his} free time?", "Which hobbies has {N} picked up over the past months?"},
	"pet":      {"What pets does {N} have?", "Which animals live with {N}?"},
	"trip":     {"Where has {N} traveled?", "Which places did {N} visit on {his} trips?"},
	"media":    {"What books has {N} read?", "Which books has {N} mentioned reading?"},
	"music":    {"Which artists has {N} seen live?", "What concerts has {N} been to?"},
	"food":     {"What restaurants has {N} tried?", "Which places has {N} eaten at recently?"},
	"family":   {"What family news has {N} shared?", "What has happened in {N}'s family?"},
}

// commonQuestions are asked of both speakers' facts of a group.
var commonQuestions = map[string][]string{
	"activity": {"What hobbies do {A} and {B} each have?", "What activities have both {A} and {B} taken up?"},
	"pet":      {"What pets do {A} and {B} have?", "What kinds of animals do {A} and {B} own?"},
	"trip":     {"Where did {A} and {B} each travel?", "What trips have {A} and {B} taken?"},
	"media":    {"What books have {A} and {B} been reading?"},
	"music":    {"Which concerts did {A} and {B} go to?"},
	"food":     {"Which restaurants did {A} and {B} try?"},
	"family":   {"What family news did {A} and {B} share?"},
}

var topics = []*topic{
	{
		kind: "home",
		scripts: [][]string{
			{"O[city]: Ugh, it hasn't stopped raining here in {city} all week. My umbrella finally gave up on me.", "P: {oof} Perfect excuse to stay in with a movie though."},
			{"O[city]: I finally tried the noodle place everyone in {city} keeps raving about. Totally lived up to the hype.", "P: Now I'm hungry, thanks a lot {haha}."},
			{"O[city]: Traffic across {city} this morning was unreal. An hour to go six miles!", "P: That sounds miserable. Podcasts are the only way I survive my commute."},
			{"O[city]: My neighbor threw a block party on Saturday. Honestly it's the first time I've felt like {city} is home.", "P: {aww} A good neighbor is gold."},
			{"O[city]: Rent in {city} went up again. I swear every landlord in town got the same memo.", "P: Ugh, same everywhere it seems."},
		},
		later: [][]string{
			{"O: There's a street fair downtown this weekend, the whole city shows up for it.", "P: Ooh, that sounds fun. Go get some fair food for me!"},
			{"O: They're finally fixing the potholes on my street. Only took three years.", "P: {Haha}, progress!"},
			{"P: Is it still raining nonstop where you are?", "O: It finally stopped! I saw the sun and nearly cried."},
		},
		qs: []string{
			"4x[city] Which city does {N} live in? => {City}",
			"4x[city] Where is {N} based? => {City}",
			"3x[city] Which state does {N} live in? => {State}, since {he} lives in {city}",
			"3x[city] What region of the country is {N} from? => {Region} ({city})",
		},
	},
	{
		kind: "move", when: "day",
		avoid: []string{"last night", "this morning"},
		opts: []string{
			"reason=Rent in {oldcity} was getting ridiculous, and here we got twice the space for the same money.; why=Rent in {oldcity} had become too expensive",
			"reason=My {parentrel} hasn't been doing great, so I wanted to be a short drive away.; why=To be closer to {his} {parentrel}",
			"reason=My company opened an office there and I jumped at the transfer.; why={He} transferred to {his} company's new office",
			"reason=Honestly, I just needed a fresh start after the year I've had.; why={He} wanted a fresh start",
			"reason=The commute was killing me, and now I can bike to work.; why=To cut down {his} commute",
			"reason={Sib} lives there and kept begging me to come, so I finally caved.; why=To live near {his} {sibrel}, {sib}",
		},
		scripts: [][]string{
			{"O[newcity,when]: Big news, {O}: I'm officially a {newcity} resident! The movers came {when}.", "P: {wow} How does it feel so far?", "O[reason]: Boxes everywhere, but it was the right move. {Reason}", "P: That makes total sense. Moving is exhausting though, take it easy."},
			{"O[newcity,when]: Sorry I went quiet, I packed up everything and moved to {newcity} {when}.", "P: Wait, you actually did it?! What pushed you over the edge?", "O[reason]: {Reason}", "P: Well, I think it's brave. New city, new chapter!"},
			{"O[when]: I handed back my keys {when}. Goodbye, {oldcity}!", "P: No way! Where did you end up?", "O[newcity,reason]: {Newcity}! {Reason}", "P: {wow} I'll have to visit once you're settled."},
		},
		later: [][]string{
			{"O: Found the best bakery two blocks from the new place. Dangerous.", "P: {Haha}! That's the real sign of a good neighborhood."},
			{"P: Are you settled in yet?", "O: Mostly! I still take the wrong exit driving home sometimes {haha}."},
			{"O: I still have six boxes I haven't opened since the move. They're basically furniture now.", "P: {Haha}, everyone has those boxes."},
		},
		qs: []string{
			"4[newcity] Which city did {N} move to? => {Newcity}",
			"4[newcity] Where does {N} live now? => {Newcity}",
			"4[reason] Why did {N} leave {oldcity}? => {Why}",
			"4[reason] What made {N} decide to move? => {Why}",
			"2[when] When did {N} move to {newcity}? => {date}",
			"3[newcity] Which state did {N} move to? => {Newstate} ({newcity})",
		},
		upd: []string{
			"1[prev.city,newcity] Where did {N} live before moving to {newcity}? => {Oldcity}",
			"1[prev.city,newcity] Which city did {N} leave behind when {he} moved? => {Oldcity}",
		},
		vp: "moved to {newcity}", ing: "moving to {newcity}",
	},
	{
		kind: "work",
		scripts: [][]string{
			{"O[job]: Sorry for the slow reply, I was stuck at {workplace} until nine. Some weeks, working as {ajob} is just nonstop.", "P: {oof} I hope you at least got to eat something.", "O: Vending machine pretzels count, right? {haha}"},
			{"O[job,dur]: I've been {ajob} for {dur} now and I still get nervous before reviews {haha}.", "P: Everyone does! You're going to be fine.", "O: Thanks. My manager is nice, I just overthink everything."},
			{"O[workplace]: Long day at {workplace}. Three people called in sick so I was covering for everyone.", "P: Ugh, that's the worst. Hope tomorrow is calmer.", "O[job]: Me too. Most days I love being {ajob}, today was not one of them."},
		},
		later: [][]string{
			{"O: Work has been a little calmer lately, which I'm not going to question.", "P: Enjoy it while it lasts!"},
			{"P: How's work these days?", "O: Busy, but the good kind of busy. Mostly."},
			{"O: I covered a double today, my feet are done.", "P: {oof} Put them up and don't move."},
			{"O: Someone at work brought in donuts and morale went up about four hundred percent.", "P: {Haha}, donuts fix everything."},
		},
		qs: []string{
			"4x[job] What does {N} do for work? => {He} is {ajob}",
			"4x[job] What is {N}'s profession? => {Job}",
			"2x[dur] How long has {N} been working in {his} field? => {Dur} (as of {sessmonth})",
		},
	},
	{
		kind: "jobchange", when: "day",
		avoid: []string{"last night", "this morning"},
		scripts: [][]string{
			{"O[newjob,when]: So... I handed in my notice, and I started my new job as a {newjob} at {company} {when}!", "P: {wow} What made you finally jump?", "O[why]: Honestly? {Why} So I took the new job.", "P: Good for you. Seriously, that takes guts."},
			{"O[when]: I quit my job {when}.", "P: Wait, what?! Are you okay?", "O[newjob,why]: Better than okay {haha}. I start as a {newjob} at {company} next week. {Why}", "P: Phew, you scared me! Congrats, that's amazing."},
			{"O[newjob]: Okay, I've been sitting on this news: I got the {newjob} job at {company}!", "P: Ahh, the one you interviewed for?! When did you start?", "O[when,why]: My first day was {when}. Why the change? {Why}", "P: I'm so proud of you, {N}."},
		},
		later: [][]string{
			{"P: How's the new job treating you?", "O: Still learning a ton, but I'm so much happier. My team is great."},
			{"O: I had my first big presentation at the new job today. Nailed it, I think!", "P: {wow} Of course you did."},
		},
		qs: []string{
			"4[newjob] What is {N}'s new job? => {Newjob} at {company}",
			"4[newjob] What job does {N} have now? => {He} works as {anewjob}",
			"4[why] Why did {N} change jobs? => {WhyAns}",
			"2[when] When did {N} start {his} new job? => {date}",
		},
		upd: []string{
			"1[prev.job,newjob] What was {N}'s job before {he} became a {newjob}? => {Prevjob}",
			"1[prev.job,newjob] What did {N} do for work before switching careers? => {He} was {aprevjob}",
		},
		vp: "started working as a {newjob}", ing: "starting {his} job as a {newjob}",
	},
	{
		kind: "pet", group: "pet", when: "day", repeat: true,
		opts: []string{
			"animal=beagle puppy; kind=dog; breed=beagle; it=him; its=his",
			"animal=golden retriever puppy; kind=dog; breed=golden retriever; it=her; its=her",
			"animal=tabby kitten; kind=cat; breed=tabby; it=her; its=her",
			"animal=Siamese kitten; kind=cat; breed=Siamese; it=him; its=his",
			"animal=border collie mix; kind=dog; breed=border collie mix; it=her; its=her",
			"animal=corgi puppy; kind=dog; breed=corgi; it=him; its=his",
			"animal=Holland Lop bunny; kind=rabbit; breed=Holland Lop; it=her; its=her",
			"animal=Maine Coon kitten; kind=cat; breed=Maine Coon; it=him; its=his",
			"animal=retired racing greyhound; kind=dog; breed=greyhound; it=her; its=her",
			"animal=cockatiel; kind=bird; breed=cockatiel; it=him; its=his",
			"animal=bearded dragon; kind=lizard; breed=bearded dragon; it=her; its=her",
			"animal=dachshund puppy; kind=dog; breed=dachshund; it=him; its=his",
			"animal=black shorthair kitten; kind=cat; breed=black shorthair; it=her; its=her",
		},
		scripts: [][]string{
			{"O[breed,when]: Guess what, {O}? We brought home a {animal} {when}!", "P: {aww} What's {it} called?", "O[pname]: {Pname}! Took us three days to agree on a name, but it fits.", "P: {Pname} is such a cute name. Is {it} settling in okay?", "O: Mostly! Lots of naps and a few accidents on the rug {haha}."},
			{"O[breed,when](a photo of a {animal} curled up on a blue blanket): Meet the newest member of the household! I adopted {it} from the shelter {when}.", "P: {aww} Look at that little face. What's {its} name?", "O[pname]: We named {it} {Pname}. I wanted something a little goofy.", "P: Love it. You're going to be such a good pet parent."},
			{"O[pname,when]: So {pname} came home with me {when} and my place has not been quiet since.", "P: Wait, who is {pname}?? Did I miss something?", "O[breed]: {Haha}! sorry! {Pname} is my new {animal}. I'd been checking the rescue listings for months.", "P: {wow} Send pictures, please."},
			{"O[breed,pname,when]: I have to introduce you to {pname}, the {animal} I adopted {when}. Best decision of the year.", "P: Stop, I'm so jealous. How old?", "O: Just a baby, and so much energy.", "P: You're going to need a lot of patience {haha}."},
		},
		later: [][]string{
			{"O: {Pname} stole a sock off the laundry pile this morning and ran laps with it.", "P: {Haha}! Pets are little chaos agents."},
			{"P: How's {pname} doing?", "O: Growing like crazy. We've been working on the whole not-jumping-on-guests thing, slowly."},
			{"O(a photo of a {kind} asleep on a sofa cushion): This is {pname}'s entire schedule on a workday.", "P: Honestly, goals."},
			{"O: Had to take {pname} to the vet for a checkup. All good, thankfully.", "P: Phew, that's a relief."},
		},
		qs: []string{
			"4[breed] What kind of {kind} did {N} adopt? => A {breed}",
			"4[breed] What breed is {N}'s {kind}? => {Breed}",
			"4[breed] Which animal did {N} bring home from the shelter? => A {animal}",
			"4[pname] What is the name of {N}'s {kind}? => {Pname}",
			"4[pname] What did {N} name the {kind} {he} brought home? => {Pname}",
			"2[when] When did {N} adopt {pname}? => {date}",
			"2[when] When did {N} get {his} {kind}? => {date}",
			"3[breed] Would {N} likely look for a pet-friendly apartment? => Likely yes, since {he} has a {kind}",
		},
		upd: []string{
			"4[pname] What is {N}'s newest pet? => {Pname}, a {breed}",
			"1[prev.pname,breed] Which pet did {N} have before {he} got the {kind}? => {Prevpname}, a {prev.breed}",
		},
		vp: "adopted {pname}", ing: "adopting {pname}",
		item: "{Pname}, a {breed}", itemTag: "breed",
	},
	{
		kind: "class", group: "activity", when: "span",
		opts: []string{
			"act=pottery; class=a beginner pottery class; venue=the community arts center; day=Tuesday; first=made a very lopsided mug; firstq=What did {N} make at {his} first class?; firsta=A lopsided mug; cap=a photo of a handmade clay mug with a crooked handle; openq=Would {N} enjoy a visit to a ceramics festival?; opena=Likely yes, since {he} took up pottery",
			"act=salsa dancing; class=salsa lessons; venue=a dance studio downtown; day=Thursday; first=got through a whole routine without stepping on anyone's toes; firstq=What was {N}'s small victory at {his} first lesson?; firsta=Getting through a routine without stepping on anyone's toes; openq=Would {N} likely enjoy a trip to Cuba or Puerto Rico for the music?; opena=Probably yes, since {he} is learning salsa",
			"act=rock climbing; class=an intro to bouldering course; venue=the climbing gym by the river; day=Wednesday; first=made it to the top of a beginner wall on my second try; firstq=What did {N} manage during {his} first session?; firsta=Reaching the top of a beginner wall on the second try; cap=a photo of a person on an indoor climbing wall with colorful holds; openq=Would {N} be interested in a trip to Yosemite?; opena=Likely yes, since {he} has taken up climbing",
			"act=watercolor painting; class=a watercolor workshop; venue=the library's art room; day=Saturday; first=painted a lemon that actually looks like a lemon; firstq=What did {N} paint at {his} first workshop?; firsta=A lemon; cap=a photo of a small watercolor painting of a lemon; openq=Would {N} enjoy an afternoon at an art museum?; opena=Likely yes, since {he} paints with watercolors",
			"act=woodworking; class=a weekend woodworking class; venue=a maker space across town; day=Sunday; first=built a little birdhouse that only wobbles a bit; firstq=What did {N} build in class?; firsta=A birdhouse; cap=a photo of a small wooden birdhouse on a workbench; openq=Would {N} appreciate a set of chisels as a gift?; opena=Likely yes, {he} does woodworking",
			"act=knitting; class=a knitting circle; venue=the yarn shop on Elm Street; day=Monday; first=finished a scarf, a very short scarf; firstq=What was the first thing {N} finished?; firsta=A very short scarf; cap=a photo of a short striped knitted scarf; openq=Would {N} be happy to receive fancy yarn as a gift?; opena=Probably yes, since {he} knits",
			"act=archery; class=archery lessons; venue=an outdoor range outside town; day=Saturday; first=hit the target twice out of thirty arrows; firstq=How did {N} do at {his} first lesson?; firsta=Hit the target twice out of thirty arrows",
			"act=improv; class=an improv comedy class; venue=a little theater near the university; day=Wednesday; first=did a whole scene as a confused penguin; firstq=What character did {N} play in class?; firsta=A confused penguin; openq=Would {N} likely enjoy a comedy show?; opena=Likely yes, {he} takes improv classes",
			"act=boxing; class=a boxing fitness class; venue=a gym near work; day=Monday; first=learned the jab-cross combo and nearly threw up; firstq=What combination did {N} learn first?; firsta=The jab-cross",
			"act=swimming; class=adult swim lessons; venue=the YMCA pool; day=Friday; first=swam a full length of the pool without stopping; firstq=What milestone did {N} reach at {his} first lesson?; firsta=Swimming a full length of the pool without stopping; openq=Would {N} have been comfortable snorkeling a year ago?; opena=Probably not, {he} only just took swim lessons",
			"act=tennis; class=tennis lessons; venue=the public courts by the park; day=Tuesday; first=returned a serve for the first time in ten years; firstq=What did {N} manage at {his} first lesson?; firsta=Returning a serve for the first time in ten years",
			"act=sourdough baking; class=a bread-baking workshop; venue=a bakery that runs classes on weekends; day=Sunday; first=baked a loaf that was flat but delicious; firstq=How did {N}'s first loaf turn out?; firsta=Flat but delicious; cap=a photo of a flat round loaf of bread on a cooling rack",
		},
		scripts: [][]string{
			{"O[act,when]: I finally did it, I signed up for {class} and went to my first one {when}!", "P: Ooh, fun! {ask}", "O[first]: Humbling {haha}. At my first class I {first}.", "P: Everyone starts somewhere. Are you going back?", "O[venue,day]: Definitely, the class is every {day} at {venue}."},
			{"O[act,when]: Guess who started {class} {when}? Me!", "P: No way, that's so you. Did you like it?", "O[first]: Loved it. I {first}, which for me is a win.", "P: {wow} Where is it?", "O[venue]: The classes are at {venue}, a short walk from my place."},
			{"O[first]({cap}): Look what I made {when}!", "P: Wait, did you make that? Since when do you do that?", "O[act,venue]: I just started {class} at {venue}! It's my new obsession.", "P: I love that for you, {N}."},
		},
		later: [][]string{
			{"P: How's {act} going?", "O: Slowly getting better! The instructor says I'm improving, so I'm choosing to believe her."},
			{"O: I have class again tonight and I'm weirdly excited about it.", "P: That's the best feeling, having something to look forward to."},
			{"O: I'm still sore from Thursday's session {haha}.", "P: That means it's working!"},
		},
		qs: []string{
			"4[act] What class did {N} sign up for? => {Class}",
			"4[first] {firstq} => {firsta}",
			"4[venue] Where does {N} go for {his} {act} classes? => {Venue}",
			"4[day] Which day of the week are {N}'s {act} sessions? => {Day}",
			"2[when] When did {N} start {act}? => {date}",
			"3[act] {openq} => {opena}",
		},
		vp: "started {act}", ing: "starting {act}",
		item: "{act}", itemTag: "act",
	},
	{
		kind: "camping", group: "activity", when: "span",
		months: []int{4, 5, 6, 7, 8, 9, 10},
		opts: []string{
			"spot=Lake Tahoe; did=hiked to a waterfall and roasted marshmallows every night; dida=Hiked to a waterfall and roasted marshmallows; cap=a photo of a tent next to a lake with pine trees",
			"spot=the Smoky Mountains; did=hiked a ridge trail at sunrise and saw a black bear from far away; dida=Hiked a ridge trail at sunrise and saw a black bear; cap=a photo of misty blue mountains at sunrise",
			"spot=Joshua Tree; did=scrambled over boulders all day and stargazed at night; dida=Climbed boulders and stargazed; cap=a photo of a desert with spiky trees under a starry sky",
			"spot=Big Sur; did=camped in the redwoods and watched the sunset over the cliffs; dida=Camped in the redwoods and watched the sunset from the cliffs; cap=a photo of a rocky coastline at sunset",
			"spot=the Adirondacks; did=canoed between two lakes and fished for our dinner; dida=Canoed between lakes and fished; cap=a photo of a canoe on a calm lake surrounded by forest",
			"spot=Zion; did=hiked the river trail with water up to our knees; dida=Hiked the river trail through the water; cap=a photo of a narrow red canyon with a river",
			"spot=Acadia; did=watched the sunrise from a mountain and ate way too much lobster; dida=Watched the sunrise from a mountain and ate lobster; cap=a photo of a rocky shore with a lighthouse",
			"spot=the Boundary Waters; did=paddled for three days without seeing another person; dida=Paddled for three days; cap=a photo of a loaded canoe on a misty lake",
		},
		scripts: [][]string{
			{"O[spot,when]: We went camping at {spot} {when}! No cell signal for three whole days.", "P: Bliss! What did you get up to?", "O[did,love]: The camping was amazing. We {did}. Honestly, hiking and camping are my happy place, I'd live in a tent if I could.", "P: {nice}"},
			{"O[spot,when]({cap}): Just got back from camping at {spot}. Went out {when}.", "P: Gorgeous! Did you rough it?", "O[did]: Totally, we camped the whole time. We {did}.", "P: I'm impressed. I'd last one night {haha}.", "O[love]: It grows on you! Being out on a trail resets my whole brain."},
		},
		later: [][]string{
			{"O: I'm already looking at campsites for next season {haha}.", "P: Of course you are!"},
			{"P: Have you been out in the woods lately?", "O: Not since the last trip, work has been too busy. I miss it."},
		},
		qs: []string{
			"4[spot] Where did {N} go camping? => {Spot}",
			"4[did] What did {N} do on {his} camping trip? => {Dida}",
			"2[when] When did {N} go camping at {spot}? => {date}",
			"3[love] Would {N} likely enjoy a trip to {park}? => Likely yes; {he} loves hiking and camping",
			"3[love] Would {N} prefer a cabin in the woods or a resort in the city for vacation? => A cabin in the woods; {he} loves the outdoors",
		},
		vp: "went camping at {spot}", ing: "camping at {spot}",
		item: "camping and hiking", itemTag: "spot",
	},
	{
		kind: "trip", group: "trip", when: "span", repeat: true,
		opts: []string{
			"place=Lisbon; country=Portugal; did=rode the old trams up and down the hills and ate way too many custard tarts; dida=Rode the old trams and ate custard tarts; cap=a photo of a yellow tram on a steep narrow street; saw=a yellow tram on a steep street; openq=Did {N} visit a Spanish-speaking country on {his} trip to {place}?; opena=No, Lisbon is in Portugal, where people speak Portuguese",
			"place=Kyoto; country=Japan; did=got up at 5am to see the bamboo forest before the crowds and visited about eleven temples; dida=Saw the bamboo forest early and visited many temples; cap=a photo of a path through a tall bamboo forest; saw=a bamboo forest path; openq=What currency did {N} need on {his} trip to {place}?; opena=Japanese yen",
			"place=Reykjavik; country=Iceland; did=soaked in a hot spring and chased the northern lights at midnight; dida=Soaked in a hot spring and saw the northern lights; cap=a photo of green northern lights over a dark mountain; saw=the northern lights; openq=Was {N}'s trip to {place} likely a warm-weather vacation?; opena=No, Iceland is cold, and {he} went to see the northern lights",
			"place=Mexico City; country=Mexico; did=ate tacos al pastor every night and wandered through Frida Kahlo's blue house; dida=Ate tacos al pastor and visited Frida Kahlo's house; cap=a photo of a bright blue house with a courtyard full of plants; saw=a blue house with a courtyard; openq=What language would {N} have heard most on {his} trip to {place}?; opena=Spanish",
			"place=Banff; country=Canada; did=canoed on a lake so turquoise it looked fake; dida=Canoed on a turquoise lake; cap=a photo of a red canoe on a turquoise lake below mountains; saw=a canoe on a turquoise lake; openq=Which country did {N} visit for {his} mountain trip?; opena=Canada (Banff is in Alberta)",
			"place=Edinburgh; country=Scotland; did=climbed Arthur's Seat in the wind and did a ghost tour of the old town; dida=Climbed Arthur's Seat and took a ghost tour; cap=a photo of a castle on a hill under gray clouds; saw=a castle on a hill; openq=Which country was {N} in when {he} climbed Arthur's Seat?; opena=Scotland",
			"place=Barcelona; country=Spain; did=spent a whole afternoon inside the Sagrada Familia and ate tapas at midnight; dida=Visited the Sagrada Familia and ate late-night tapas; cap=a photo of a tall ornate church with cranes next to it; saw=a tall ornate church",
			"place=Hanoi; country=Vietnam; did=took a street food tour on the back of a scooter and tried egg coffee; dida=Took a scooter street food tour and tried egg coffee; cap=a photo of a busy street full of scooters at night; saw=a street full of scooters; openq=Which continent did {N} travel to for {his} trip to {place}?; opena=Asia",
			"place=New Orleans; country=the United States; did=heard live jazz every night and ate beignets for breakfast twice; dida=Heard live jazz and ate beignets; cap=a photo of a brass band playing on a street corner; saw=a brass band on a street corner; openq=What kind of music would {N} likely have heard on {his} trip to {place}?; opena=Jazz",
			"place=Cape Town; country=South Africa; did=hiked up Table Mountain and saw penguins on the beach; dida=Hiked Table Mountain and saw penguins; cap=a photo of penguins on a sandy beach with big rocks; saw=penguins on a beach; openq=Which hemisphere was {N} in during {his} trip to {place}?; opena=The Southern Hemisphere",
			"place=Buenos Aires; country=Argentina; did=took a tango lesson and ate steak five days straight; dida=Took a tango lesson and ate a lot of steak; cap=a photo of a couple dancing tango on a cobblestone street; saw=people dancing tango",
			"place=Prague; country=the Czech Republic; did=walked across the old stone bridge at sunrise and toured the castle; dida=Walked the old bridge at sunrise and toured the castle; cap=a photo of a stone bridge with statues at sunrise; saw=a stone bridge with statues",
			"place=Seoul; country=South Korea; did=ate at a night market and hiked up to an old palace; dida=Ate at a night market and visited a palace; cap=a photo of a palace gate with mountains behind it; saw=a palace gate",
			"place=Maui; country=the United States; did=snorkeled with sea turtles and drove the long winding road along the coast; dida=Snorkeled with sea turtles and drove the coastal road; cap=a photo of a sea turtle swimming over coral; saw=a sea turtle; openq=Did {N} need a passport for {his} trip to {place}, as an American?; opena=No, Maui is in Hawaii, a U.S. state",
			"place=Amsterdam; country=the Netherlands; did=biked everywhere and spent hours in the Van Gogh Museum; dida=Biked around and visited the Van Gogh Museum; cap=a photo of bicycles parked along a canal; saw=bikes along a canal",
			"place=Oaxaca; country=Mexico; did=took a mole cooking class and visited ruins on a mountaintop; dida=Took a mole cooking class and visited mountaintop ruins; cap=a photo of stone ruins on a hilltop; saw=stone ruins on a hill",
		},
		scripts: [][]string{
			{"O[place,when]: I got back from {place} {when} and I'm still jet-lagged {haha}.", "P: Oh wow, how was it?!", "O[did]: Unreal. In {place} we {did}.", "P: That sounds like a dream. I need a vacation so bad."},
			{"O[place,when]({cap}): Sharing a pic from {place}! We flew out {when}.", "P: Gorgeous!! What was the best part?", "O[did]: In {place} we {did}. I didn't want to leave.", "P: So jealous, honestly."},
			{"O[when]: I took a few days off {when} and finally did the trip I've been talking about forever.", "P: Wait, where did you end up going?", "O[place,did]: {Place}! We {did}.", "P: {wow} That's been on your list for years."},
		},
		later: [][]string{
			{"O: I'm still dreaming about the trip. Back to reality is hard {haha}.", "P: The post-vacation blues are real."},
			{"P: Did you finish going through your vacation photos?", "O: Not even close, I took about nine hundred."},
			{"O: I printed a few of my trip photos for the fridge.", "P: {aww} That's such a nice way to remember it."},
		},
		qs: []string{
			"4[did] What did {N} do in {place}? => {Dida}",
			"4u[place] Where did {N} go on vacation? => {Place}",
			"4[photo] What did {N}'s photo from {place} show? => {Saw}",
			"2[when] When did {N} travel to {place}? => {date}",
			"2[when] When was {N}'s trip to {place}? => {date}",
			"3[place] {openq} => {opena}",
			"3[place] Which country did {N} visit when {he} went to {place}? => {Country}",
		},
		vp: "went to {place}", ing: "visiting {place}",
		item: "{place}", itemTag: "place",
		afterq: "Where did {N} travel after {a.ing}?",
	},
	{
		kind: "concert", group: "music", when: "day", repeat: true,
		avoid: []string{"this morning"},
		opts: []string{
			"artist=Hozier; genre=soulful rock; song=Take Me to Church",
			"artist=Coldplay; genre=pop rock; song=Fix You",
			"artist=Kacey Musgraves; genre=country; song=Slow Burn",
			"artist=Norah Jones; genre=jazz; song=Don't Know Why",
			"artist=The Lumineers; genre=folk rock; song=Ho Hey",
			"artist=Florence and the Machine; genre=indie rock; song=Dog Days Are Over",
			"artist=Chris Stapleton; genre=country; song=Tennessee Whiskey",
			"artist=the city symphony; genre=classical; song=Beethoven's Ninth",
			"artist=Billy Joel; genre=classic rock; song=Piano Man",
			"artist=Bad Bunny; genre=reggaeton; song=Titi Me Pregunto",
			"artist=Lizzo; genre=pop; song=Good as Hell",
			"artist=Vampire Weekend; genre=indie pop; song=A-Punk",
		},
		scripts: [][]string{
			{"O[artist,when]: I saw {artist} live {when} and I'm still not over it.", "P: Ahh, jealous! How was the show?", "O[song]: They closed with {song} and the whole place sang along. I cried a little, not gonna lie.", "P: That sounds magical."},
			{"O[when](a photo of a crowded concert stage with purple lights): This was my view {when}!!", "P: Whose concert was that??", "O[artist,giver]: {Artist}! My {sibrel} surprised me with tickets.", "P: Best {sibrel} ever. Was it as good as you hoped?", "O[song]: Better. Hearing {song} live gave me chills."},
		},
		later: [][]string{
			{"O: I've had the same song stuck in my head since the concert.", "P: {Haha}, the concert hangover is real."},
		},
		qs: []string{
			"4u[artist] Which artist did {N} see in concert? => {Artist}",
			"4[song] What song closed the {artist} concert {N} went to? => {Song}",
			"4[song] What song gave {N} chills at the {artist} concert? => {Song}",
			"4[giver] Who got {N} the tickets to see {artist}? => {His} {sibrel}",
			"2[when] When did {N} go to the {artist} concert? => {date}",
			"3[artist] What kind of music does {N} seem to like? => {Genre} (for example {artist})",
		},
		vp: "saw {artist} live", ing: "seeing {artist} live",
		item: "{Artist}", itemTag: "artist",
		afterq: "Which concert did {N} go to after {a.ing}?",
	},
	{
		kind: "book", group: "media", when: "day", repeat: true,
		opts: []string{
			"book=Project Hail Mary; author=Andy Weir; genre=science fiction; about=an astronaut who wakes up alone on a spaceship with no memory",
			"book=Educated; author=Tara Westover; genre=memoirs; about=a woman who grew up without going to school and ended up at Cambridge",
			"book=The Night Circus; author=Erin Morgenstern; genre=fantasy; about=two magicians competing inside a circus that only opens at night",
			"book=Braiding Sweetgrass; author=Robin Wall Kimmerer; genre=nature writing; about=plants, botany and Indigenous traditions",
			"book=The Seven Husbands of Evelyn Hugo; author=Taylor Jenkins Reid; genre=historical fiction; about=an old Hollywood star finally telling her life story",
			"book=Atomic Habits; author=James Clear; genre=self-help; about=building tiny habits that add up over time",
			"book=Lessons in Chemistry; author=Bonnie Garmus; genre=funny literary fiction; about=a chemist in the sixties who ends up hosting a cooking show",
			"book=Circe; author=Madeline Miller; genre=myth retellings; about=the witch from the Odyssey, told from her side",
			"book=A Gentleman in Moscow; author=Amor Towles; genre=historical fiction; about=a count stuck under house arrest in a fancy hotel for decades",
			"book=Born a Crime; author=Trevor Noah; genre=memoirs; about=growing up in South Africa under apartheid",
			"book=Sapiens; author=Yuval Noah Harari; genre=big-picture history; about=the whole history of humans, from hunter-gatherers on",
			"book=Where the Crawdads Sing; author=Delia Owens; genre=mysteries; about=a girl who raises herself alone in the marshes",
			"book=The Midnight Library; author=Matt Haig; genre=feel-good fiction; about=a library where every book is a different version of your life",
			"book=Klara and the Sun; author=Kazuo Ishiguro; genre=literary science fiction; about=a robot companion watching over a sick girl",
		},
		scripts: [][]string{
			{"O[book,when]: I stayed up way too late finishing {book} {when}. Couldn't put it down.", "P: Ooh, I've heard of that one! What's it about?", "O[about]: It's about {about}. {Author} is such a good writer.", "P: Adding it to my list!"},
			{"O[author,about]: Have you read anything by {author}? I'm halfway through the one about {about}.", "P: No! Is it good?", "O[book]: So good. It's called {book}. You can borrow my copy when I'm done.", "P: Deal, thank you!"},
			{"O[book](a photo of a paperback book on a nightstand next to a mug of tea): My evening plans, {O}.", "P: What are you reading?", "O[author,about]: {Book} by {author}. It's about {about}, and I'm hooked.", "P: {nice}"},
		},
		later: [][]string{
			{"O: I'm in a reading slump after that last book. Nothing feels as good.", "P: That happens to me too. Maybe try something totally different?"},
			{"P: Have you read anything good lately?", "O: I started a couple of books but nothing's grabbed me yet."},
		},
		qs: []string{
			"4u[book] Which book has {N} been into lately? => {Book} by {author}",
			"4[author] Who wrote the book {N} was reading? => {Author}",
			"4[about] What is {book} about, according to {N}? => {About}",
			"2[when] When did {N} finish reading {book}? => {date}",
			"3[book] What genre of books does {N} seem to enjoy? => {Genre}, like {book}",
		},
		vp: "read {book}", ing: "reading {book}",
		item: "{Book}", itemTag: "book",
	},
	{
		kind: "race", group: "activity", when: "day",
		avoid: []string{"last night"},
		opts: []string{
			"race=a charity 5K; cause=the children's hospital; time=28 minutes; dist=5K; act=running",
			"race=a half marathon; cause=breast cancer research; time=2 hours and 9 minutes; dist=half marathon; act=running",
			"race=a 10K fun run; cause=an animal rescue; time=58 minutes; dist=10K; act=running",
			"race=a charity 5K; cause=the local food bank; time=31 minutes; dist=5K; act=running",
			"race=a trail half marathon; cause=a suicide prevention group; time=2 hours and 40 minutes; dist=trail half marathon; act=trail running",
			"race=a sprint triathlon; cause=the literacy foundation; time=an hour and 35 minutes; dist=triathlon; act=triathlons",
		},
		scripts: [][]string{
			{"O[race,when]: I ran {race} {when}!! Completed the whole thing, and my legs are still mad at me.", "P: {wow} What was it for?", "O[cause]: The race raised money for {cause}. Our team beat its goal too.", "P: That's so meaningful. How did you do?", "O[time]: Finished in {time}! Not fast, but I never walked."},
			{"O[when](a photo of a person holding a finisher medal in front of a race banner): Got my medal {when}!", "P: Wait, what race?!", "O[race,cause]: {Race} to support {cause}. I trained for months.", "P: I'm so proud of you, {N}! What was your time?", "O[time]: {Time}. I'll take it {haha}."},
		},
		later: [][]string{
			{"O: My knees are finally forgiving me for that race {haha}.", "P: {Haha}! Are you signing up for another one?", "O: Maybe! Ask me again in a month."},
			{"O: I went for an easy run this morning, first one in a while.", "P: Nice! How did it feel?", "O: Slow, but good."},
		},
		qs: []string{
			"4[cause] What cause did {N}'s race support? => {Cause}",
			"4[time] What was {N}'s finishing time? => {Time}",
			"4[race] What race did {N} complete? => {Race}",
			"2[when] When did {N} run the {dist}? => {date}",
			"3[race] Is {N} likely to be physically active? => Yes; {he} trained for and ran {race}",
		},
		vp: "ran the {dist}", ing: "running the {dist}",
		item: "{act}", itemTag: "race",
	},
	{
		kind: "cooking", when: "day",
		opts: []string{
			"dish=my grandma's pierogi; dishq=pierogi; whorel=grandma; origin=Polish; secret=a little sour cream in the dough",
			"dish=my abuela's tamales; dishq=tamales; whorel=abuela; origin=Mexican; secret=lard, not oil, in the masa",
			"dish=my nani's biryani; dishq=biryani; whorel=grandmother; origin=Indian; secret=saffron soaked in warm milk",
			"dish=my grandpa's gumbo; dishq=gumbo; whorel=grandpa; origin=Cajun; secret=a really dark roux",
			"dish=my halmoni's kimchi; dishq=kimchi; whorel=grandmother; origin=Korean; secret=a bit of pear in the paste",
			"dish=my nonna's lasagna; dishq=lasagna; whorel=nonna; origin=Italian; secret=nutmeg in the béchamel",
			"dish=my yiayia's spanakopita; dishq=spanakopita; whorel=grandmother; origin=Greek; secret=lots of fresh dill",
			"dish=my lola's chicken adobo; dishq=adobo; whorel=grandmother; origin=Filipino; secret=letting it sit overnight",
		},
		scripts: [][]string{
			{"O[dish,when]: I finally attempted {dish} {when}, straight from the family recipe. Took four hours, but it tasted exactly like I remember.", "P: Omg, I'm drooling. Did you have the recipe?", "O[secret]: It's on an old index card I keep in a drawer. The secret is {secret}.", "P: The family secrets are always the best part."},
			{"O[when](a photo of a kitchen counter covered in trays of homemade food): The whole kitchen was a disaster {when}, but look!", "P: Whoa, what did you make?", "O[dish]: {Dish}! First time making it without my {whorel} watching.", "P: {aww} I bet your {whorel} would be proud.", "O[secret]: I even remembered the secret: {secret}."},
		},
		later: [][]string{
			{"O: I still have leftovers in the freezer from my big cooking day.", "P: Future you is going to be so grateful."},
		},
		qs: []string{
			"4[dish] What family recipe did {N} make? => {His} {whorel}'s {dishq}",
			"4[dish] Whose recipe did {N} use for the {dishq}? => {His} {whorel}'s",
			"4[secret] What is the secret to {N}'s {dishq}? => {Secret}",
			"2[when] When did {N} cook {dishq}? => {date}",
			"3[dish] What cuisine might {N}'s family background be connected to? => {Origin}, based on {his} {whorel}'s {dishq}",
		},
		vp: "made {his} {whorel}'s {dishq}", ing: "making {his} {whorel}'s {dishq}",
	},
	{
		kind: "volunteer", group: "activity", when: "span",
		opts: []string{
			"org=the animal shelter; task=walking the dogs and cleaning kennels; day=Saturday mornings; why=I needed something that gets me off my phone; whya={He} wanted something to get {him} off {his} phone",
			"org=the food bank; task=sorting donations and packing grocery boxes; day=Wednesday evenings; why=I wanted to give back after a rough year; whya=To give back after a rough year",
			"org=an after-school reading program; task=reading with second graders; day=Tuesday afternoons; why=I remember how much a tutor helped me as a kid; whya=A tutor helped {him} as a child",
			"org=a community garden; task=weeding and running the compost; day=Sunday mornings; why=I wanted to meet my neighbors; whya=To meet {his} neighbors",
			"org=a crisis text line; task=answering texts from people having a hard night; day=Friday nights; why=a friend went through a really dark time and I wanted to help people like her; whya=A friend of {his} went through a dark time",
			"org=a senior center; task=teaching people to use their phones and tablets; day=Thursday mornings; why=I kept thinking about my grandparents; whya={He} kept thinking about {his} grandparents",
		},
		scripts: [][]string{
			{"O[org,when]: I started volunteering at {org} {when}!", "P: {wow} What do they have you doing?", "O[task]: As a volunteer I'm mostly {task}. It's tiring but I leave smiling every time.", "P: {nice} What made you sign up?", "O[why]: Honestly, I started volunteering because {why}."},
			{"O[org]: I've been volunteering {day} at {org} lately.", "P: Oh nice! Doing what?", "O[task]: {Task}. Best volunteer gig ever, I look forward to it all week.", "P: That's really lovely, {N}."},
		},
		later: [][]string{
			{"O: We had a really busy shift this week, but it felt good.", "P: You're doing something good. Keep it up!"},
		},
		qs: []string{
			"4[org] Where does {N} volunteer? => At {org}",
			"4[task] What does {N} do as a volunteer? => {Task}",
			"4[why] Why did {N} start volunteering? => {Whya}",
			"2[when] When did {N} start volunteering at {org}? => {date}",
			"3[org] Would {N} be likely to donate to a charity drive? => Likely yes; {he} volunteers at {org}",
		},
		vp: "started volunteering", ing: "starting to volunteer",
		item: "volunteering at {org}", itemTag: "org",
	},
	{
		kind: "wedding", group: "family", when: "day",
		avoid: []string{"this morning"},
		opts: []string{
			"venue=a vineyard in the hills; role=gave a speech; rolea={He} gave a speech",
			"venue=an old barn with string lights everywhere; role=was the officiant, I got ordained online; rolea={He} officiated the ceremony",
			"venue=the beach at sunset; role=read a poem during the ceremony; rolea={He} read a poem",
			"venue=a tiny courthouse, then a huge party at a brewery; role=was the witness who signed the papers; rolea={He} was the witness",
			"venue=a little chapel by a lake, then a picnic; role=played the piano while they walked in; rolea={He} played the piano",
		},
		scripts: [][]string{
			{"O[when]: My {sibrel} {sib} got married {when}! I cried through the whole thing.", "P: Aww, congrats to them! Where was it?", "O[venue]: The wedding was at {venue}. And I {role}, which terrified me.", "P: {aww} I'm sure you were amazing."},
			{"O[when](a photo of a bride and groom dancing under string lights): Best night {when}.", "P: Wait, whose wedding?!", "O[venue]: {Sib}'s! Out at {venue}.", "P: Stunning. Did you do anything in the ceremony?", "O[role]: I {role}. Shaking the whole time {haha}."},
		},
		later: [][]string{
			{"O: {Sib} just sent me the wedding photos, I look like I'm sobbing in all of them {haha}.", "P: Happy tears count as a good look!"},
		},
		qs: []string{
			"4[venue] Where was {N}'s {sibrel}'s wedding? => {Venue}",
			"4[role] What did {N} do during {his} {sibrel}'s wedding ceremony? => {Rolea}",
			"2[when] When did {N}'s {sibrel} get married? => {date}",
		},
		vp: "went to {his} {sibrel}'s wedding", ing: "going to {his} {sibrel}'s wedding",
		item: "{his} {sibrel} {sib} got married", itemTag: "when",
	},
	{
		kind: "baby", group: "family", when: "day",
		opts: []string{
			"babyrel=niece; babyher=her; weight=seven pounds even",
			"babyrel=nephew; babyher=his; weight=eight pounds two ounces",
			"babyrel=niece; babyher=her; weight=six pounds eleven ounces",
			"babyrel=nephew; babyher=his; weight=nine pounds, ouch",
		},
		scripts: [][]string{
			{"O[when]: I'm an {auntuncle} now!! {Sib} had the baby {when}.", "P: {wow} Boy or girl? Name?", "O[bname]: A little {babyrel}, {bname}. I'm obsessed already.", "P: {aww} Congratulations, {auntuncle} {N}!"},
			{"O[bname,when](a photo of a newborn baby wrapped in a striped hospital blanket): Say hi to {bname}, my new {babyrel}, born {when}!", "P: Oh my gosh! Whose baby is this?", "O: {Sib}'s! I finally have a {babyrel} to spoil.", "P: {aww} Congratulations to your whole family!"},
		},
		later: [][]string{
			{"O: I babysat {bname} for the first time, I was so nervous.", "P: {aww} How did it go?", "O: Survived! Only one diaper disaster."},
		},
		qs: []string{
			"4[bname] What is the name of {N}'s {babyrel}? => {Bname}",
			"4[bname] What did {N}'s {sibrel} name the baby? => {Bname}",
			"4[bname] What is the name of the baby {N}'s {sibrel} had? => {Bname}",
			"2[when] When was {N}'s {babyrel} born? => {date}",
		},
		vp: "became an {auntuncle}", ing: "becoming an {auntuncle}",
		item: "{his} {sibrel} had a baby", itemTag: "when",
	},
	{
		kind: "injury", when: "day",
		opts: []string{
			"injury=sprained my ankle; part=ankle; how=stepping off a curb wrong while carrying groceries; howa=Stepping off a curb wrong while carrying groceries; fix=a brace for three weeks; injurya=A sprained ankle",
			"injury=broke my wrist; part=wrist; how=slipping on ice in a parking lot; howa=Slipping on ice in a parking lot; fix=a cast for six weeks; injurya=A broken wrist",
			"injury=threw out my back; part=back; how=helping a friend carry a couch up three flights of stairs; howa=Carrying a couch up the stairs for a friend; fix=physical therapy twice a week; injurya=A back injury",
			"injury=tore a ligament in my knee; part=knee; how=playing pickup soccer way too competitively; howa=Playing pickup soccer; fix=a knee brace and no running for two months; injurya=A torn knee ligament",
			"injury=cracked a rib; part=rib; how=falling off my bike on a wet trail; howa=Falling off {his} bike on a wet trail; fix=just rest, apparently you can't do much for ribs; injurya=A cracked rib",
		},
		scripts: [][]string{
			{"O[injury,when]: So I {injury} {when}. Very graceful of me.", "P: {oof} How did that happen?", "O[how]: I got hurt {how}. The doctor said I need {fix}.", "P: Please rest up and be nice to yourself."},
			{"O[when]: Well, I spent {when} in urgent care.", "P: What?! Are you okay??", "O[injury,how]: I'm fine, I {injury} {how} {haha}.", "P: {oof} Heal fast, {N}!"},
		},
		later: [][]string{
			{"P: How's the {part} healing?", "O: Slowly! I'm getting impatient though."},
			{"O: I'm finally allowed to do normal stuff again. Never taking walking for granted.", "P: Yay! Ease back into it."},
		},
		qs: []string{
			"4[how] How did {N} get hurt? => {Howa}",
			"4[injury] What injury did {N} have? => {Injurya}",
			"4[injury] What happened to {N}'s {part}? => {Injurya}",
			"2[when] When did {N} hurt {his} {part}? => {date}",
			"3[injury] Was {N} likely able to go running the week after {his} injury? => Probably not; {he} had {injurya} and needed {fix}",
		},
		vp: "hurt {his} {part}", ing: "hurting {his} {part}",
	},
	{
		kind: "car", when: "day",
		opts: []string{
			"car=a used Subaru Outback; color=dark green; nick=the Pickle",
			"car=a secondhand Honda Civic; color=silver; nick=Silver Bullet",
			"car=an electric Chevy Bolt; color=bright blue; nick=Blueberry",
			"car=a little Mazda 3; color=red; nick=Ruby",
			"car=a used Toyota Tacoma; color=white; nick=the Snowplow",
			"car=a Ford Bronco; color=orange; nick=the Pumpkin",
		},
		scripts: [][]string{
			{"O[car,when]: I finally replaced my old clunker! Picked up {car} {when}.", "P: {wow} What color did you get?", "O[color]: {Color}! Kind of a bold color for me, and I've already named it {nick} {haha}.", "P: Of course you did. Congrats on the new ride!"},
			{"O[when](a photo of a shiny {color} car parked in a driveway): Look who became a car owner again {when}!", "P: Ooh, what is it?", "O[car]: {Car}. Not new, but it's new to me.", "P: {nice}"},
		},
		later: [][]string{
			{"O: Took the car on its first road trip, it handled the hills like a champ.", "P: Sounds like a keeper!"},
		},
		qs: []string{
			"4[car] What car did {N} buy? => {Car}",
			"4[car] What used car did {N} pick up? => {Car}",
			"4[color] What color is {N}'s car? => {Color}",
			"2[when] When did {N} get {his} new car? => {date}",
		},
		vp: "bought {his} car", ing: "buying {his} car",
	},
	{
		kind: "homeproject", when: "span",
		opts: []string{
			"proj=painted my bedroom; projq=painted {his} bedroom; detail=a deep sage green; q=What color did {N} paint {his} bedroom?; a=Sage green; cap=a photo of a bedroom with green walls and a white bed",
			"proj=built a bookshelf from scratch; projq=built a bookshelf; detail=walnut boards from a lumber yard; q=What wood did {N} use for {his} bookshelf?; a=Walnut; cap=a photo of a wooden bookshelf filled with books and plants",
			"proj=turned the spare room into an office; projq=turned {his} spare room into an office; detail=a standing desk by the window; q=What did {N} put by the window in {his} new office?; a=A standing desk",
			"proj=retiled the bathroom; projq=retiled {his} bathroom; detail=little hexagon tiles, black and white; q=What kind of tiles did {N} put in {his} bathroom?; a=Black and white hexagon tiles; cap=a photo of a bathroom floor with black and white hexagon tiles",
			"proj=hung wallpaper in the hallway; projq=wallpapered {his} hallway; detail=a pattern with tiny lemons all over it; q=What pattern is on {N}'s new wallpaper?; a=Tiny lemons",
		},
		scripts: [][]string{
			{"O[proj,when]: Home improvement win: I {proj} {when}. Took the whole weekend and a lot of snacks.", "P: Ooh, how did it turn out?", "O[detail]: I went with {detail} and I'm so happy with it.", "P: That sounds gorgeous. Send a picture!"},
			{"O[detail,when]({cap}): Before and after! Finished it {when}.", "P: Wait, you did that yourself?!", "O[proj]: Yep! I {proj}. YouTube tutorials are a miracle.", "P: {wow} I'm impressed, {N}."},
		},
		later: [][]string{
			{"O: Now that one room is done, every other room looks terrible {haha}.", "P: Ha, the renovation curse!"},
		},
		qs: []string{
			"4[detail] {q} => {a}",
			"4[proj] What home project did {N} take on? => {He} {projq}",
			"4[proj] What did {N} spend a whole weekend doing around the house? => {He} {projq}",
			"2[when] When did {N} finish {his} home project? => {date}",
			"3[proj] Would {N} be comfortable with DIY projects around the house? => Yes; {he} {projq} {himself}",
		},
		vp: "finished {his} home project", ing: "finishing {his} home project",
	},
	{
		kind: "garden", group: "activity",
		months: []int{4, 5, 6, 7, 8, 9, 10},
		opts: []string{
			"crops=tomatoes, basil and way too many zucchini; cropsa=Tomatoes, basil and zucchini; plot=a plot at the community garden; plota=A community garden plot",
			"crops=strawberries and a bunch of herbs; cropsa=Strawberries and herbs; plot=a few pots on my tiny balcony; plota=On {his} balcony",
			"crops=peppers, so many peppers, and some lettuce; cropsa=Peppers and lettuce; plot=two raised beds in the backyard; plota=Raised beds in {his} backyard",
			"crops=sunflowers and pumpkins; cropsa=Sunflowers and pumpkins; plot=the strip of dirt next to my driveway; plota=Next to {his} driveway",
		},
		scripts: [][]string{
			{"O[crops]: My garden is going wild this year. I'm growing {crops}.", "P: Ooh, a green thumb! Where are you growing all that?", "O[plot]: {Plot}. Gardening there is my little escape.", "P: {nice}"},
			{"O[plot,crops](a photo of green plants in soil with small red tomatoes): Garden update from {plot}! I'm growing {crops} and they're all coming in.", "P: That looks amazing! Do you have a secret?", "O: Lots of water and talking to them {haha}.", "P: Whatever works!"},
		},
		later: [][]string{
			{"O: Something keeps eating my garden. I suspect a very fat squirrel.", "P: {Haha}! Squirrels are criminals."},
		},
		qs: []string{
			"4[crops] What is {N} growing? => {Cropsa}",
			"4[plot] Where does {N} do {his} gardening? => {Plota}",
			"3[crops] Would {N} appreciate a gift of seeds? => Likely yes; {he} grows {cropsa}",
		},
		item: "gardening", itemTag: "crops",
	},
	{
		kind: "painting", group: "activity", when: "span",
		opts: []string{
			"subj=a sunrise over a lake; medium=acrylic; forr=my {parentrel}'s birthday; forra={His} {parentrel}'s birthday",
			"subj=my childhood street in the snow; medium=oil; forr=my {sibrel}'s new apartment; forra={His} {sibrel}'s new apartment",
			"subj=a field of lavender; medium=watercolor; forr=my best friend's housewarming; forra={His} best friend's housewarming",
			"subj=a lighthouse in a storm; medium=acrylic; forr=a local art fair; forra=A local art fair",
			"subj=an old red barn at sunset; medium=oil; forr=my {parentrel}'s retirement; forra={His} {parentrel}'s retirement",
			"subj=a bowl of lemons on a windowsill; medium=gouache; forr=my own kitchen wall; forra={His} own kitchen wall",
		},
		scripts: [][]string{
			{"O[subj,when](a painting of {subj}): Finished this one {when}!", "P: Wow, you painted that?! It's beautiful.", "O[medium,forr]: Thank you! {Medium} on canvas. The painting is for {forr}.", "P: They're going to love it."},
			{"O[when]: I painted for six hours straight {when} and completely lost track of time.", "P: Ooh, what are you working on?", "O[subj]: {Subj}. It's been in my head for weeks.", "P: Can I see it when it's done?", "O[forr]: Of course! It's going to be for {forr}."},
		},
		later: [][]string{
			{"O: I started a new painting but I'm stuck on the sky. Skies are hard.", "P: I believe in you {haha}."},
		},
		qs: []string{
			"4[subj] What did {N} paint? => {Subj}",
			"4[forr] Who was {N}'s painting of {subj} for? => {Forra}",
			"4[medium] What paint did {N} use? => {Medium}",
			"2[when] When did {N} work on the painting of {subj}? => {date}",
			"3[subj] Would {N} likely enjoy a painting class? => Likely yes; {he} paints in {his} free time",
		},
		vp: "painted {subj}", ing: "painting {subj}",
		item: "painting", itemTag: "subj",
	},
	{
		kind: "course", when: "span",
		opts: []string{
			"course=an online data analysis certificate; goal=get into a more technical role; goala=To move into a more technical role; career=data analysis",
			"course=a night class in American Sign Language; goal=be able to talk with my deaf coworker properly; goala=To communicate with {his} deaf coworker; career=interpreting or accessibility work",
			"course=a counseling certificate program; goal=help people the way a counselor once helped me; goala=To help people like a counselor once helped {him}; career=counseling",
			"course=a part-time MBA; goal=run my own business someday; goala=To run {his} own business one day; career=business management",
			"course=a coding bootcamp; goal=build apps instead of just using them; goala=To build apps; career=software development",
			"course=a nutrition science course; goal=understand what I'm actually eating; goala=To understand nutrition; career=dietetics or health coaching",
		},
		scripts: [][]string{
			{"O[course,when]: I enrolled in {course} {when}. Back to homework at my age {haha}.", "P: {wow} What made you go for it?", "O[goal]: Honestly, I went back to school so I can {goal}.", "P: That's a great reason. You've got this."},
			{"O[course]: Studying again tonight. Turns out {course} is no joke.", "P: Wait, you're in school?", "O[goal,when]: Started {when}! I went back to school because I really want to {goal}.", "P: I'm proud of you, {N}."},
		},
		later: [][]string{
			{"O: I have an exam on Thursday and I've forgotten how to study.", "P: Flashcards! And snacks. Lots of snacks."},
			{"P: How's the course going?", "O: Hard but good. I finally understand what the teacher is talking about, mostly."},
		},
		qs: []string{
			"4[course] What is {N} studying? => {Course}",
			"4[goal] Why did {N} go back to school? => {Goala}",
			"2[when] When did {N} start {his} course? => {date}",
			"3[course] What career field might {N} be interested in? => {Career}",
		},
		vp: "enrolled in {course}", ing: "enrolling in {course}",
	},
	{
		kind: "league", group: "activity",
		opts: []string{
			"sport=volleyball; team=the Net Ninjas; pos=setter",
			"sport=kickball; team=the Base Invaders; pos=pitcher",
			"sport=soccer; team=FC Monday Night; pos=goalkeeper",
			"sport=softball; team=the Dugout Divas; pos=second base",
			"sport=ultimate frisbee; team=the Flying Squirrels; pos=handler",
			"sport=basketball; team=the Ball Hogs; pos=point guard",
			"sport=pickleball; team=the Dill Dinks; pos=the left side",
		},
		scripts: [][]string{
			{"O[sport]: I joined a rec {sport} league!", "P: {wow} Are you any good?", "O[pos]: I'm playing {pos}, and I'm... learning {haha}.", "P: What's your team called?", "O[team]: {Team}. I didn't pick the team name."},
			{"O[team]: {Team} won our first game last night!", "P: Who's {team}?", "O[sport,pos]: My {sport} team! I play {pos}.", "P: Look at you, a real athlete now."},
		},
		later: [][]string{
			{"O: We lost our game by one point last night, I'm still annoyed.", "P: So close! Next time."},
			{"O: Practice tonight, and it's supposed to rain. Great.", "P: {Haha}! Very character building."},
		},
		qs: []string{
			"4[sport] What sport does {N} play in a league? => {Sport}",
			"4[team] What is the name of {N}'s team? => {Team}",
			"4[pos] What position does {N} play? => {Pos}",
			"3[sport] Does {N} likely enjoy team sports? => Yes; {he} plays in a {sport} league",
		},
		item: "{sport}", itemTag: "sport",
	},
	{
		kind: "restaurant", group: "food", when: "day", repeat: true,
		avoid: []string{"this morning"},
		opts: []string{
			"rname=Little Saigon Kitchen; cuisine=Vietnamese; dish=lemongrass pork noodle bowl; cap=a photo of a bowl of noodles with herbs and grilled pork",
			"rname=Casa Verde; cuisine=Oaxacan; dish=mole negro enchiladas; cap=a photo of enchiladas covered in dark sauce on a plate",
			"rname=Sakura Counter; cuisine=Japanese; dish=omakase, twelve courses; cap=a photo of a piece of sushi on a wooden counter",
			"rname=The Copper Pot; cuisine=farm-to-table; dish=roast chicken with charred carrots; cap=a photo of a roast chicken with carrots on a plate",
			"rname=Mama Lou's; cuisine=Southern; dish=fried chicken and biscuits; cap=a photo of fried chicken and biscuits on a plate",
			"rname=Taverna Thalassa; cuisine=Greek; dish=grilled octopus; cap=a photo of grilled octopus with lemon on a plate",
			"rname=Spice Route; cuisine=Ethiopian; dish=combination platter with injera; cap=a photo of a large flatbread with stews on top",
			"rname=Nonna Rosa's; cuisine=Italian; dish=cacio e pepe; cap=a photo of a bowl of spaghetti with cheese and pepper",
			"rname=Seoul Fire; cuisine=Korean barbecue; dish=short ribs; cap=a photo of meat grilling on a tabletop grill",
			"rname=Chaat House; cuisine=Indian street food; dish=pani puri; cap=a photo of small round fried shells filled with potatoes",
		},
		scripts: [][]string{
			{"O[rname,cuisine,when]: We tried {rname} {when}, the new {cuisine} place. Ten out of ten.", "P: Ooh, what did you get?", "O[dish]: I ordered the {dish}. I'm already planning to go back.", "P: Okay, I'm adding it to my list."},
			{"O[dish,when]({cap}): This was dinner {when}. I'm still thinking about it.", "P: That looks incredible, where is that from?", "O[rname,cuisine]: {Rname}! It's {cuisine}, just opened.", "P: I need to go asap."},
		},
		later: [][]string{
			{"O: I've been craving that dinner spot ever since.", "P: {Haha}, go back! Life is short."},
		},
		qs: []string{
			"4[dish] What did {N} order at {rname}? => {Dish}",
			"4[dish] What did {N} have for dinner at {rname}? => {Dish}",
			"4[cuisine] What kind of food does {rname} serve? => {Cuisine}",
			"2[when] When did {N} eat at {rname}? => {date}",
		},
		vp: "ate at {rname}", ing: "eating at {rname}",
		item: "{Rname}", itemTag: "rname",
	},
	{
		kind: "show", when: "",
		opts: []string{
			"show=The Bear; genre=drama about a chef; where=a restaurant kitchen",
			"show=Severance; genre=sci-fi thriller; where=a creepy office",
			"show=Ted Lasso; genre=feel-good comedy; where=a soccer club",
			"show=The Great British Bake Off; genre=baking competition; where=a tent full of bakers",
			"show=Only Murders in the Building; genre=mystery comedy; where=an apartment building",
			"show=Planet Earth; genre=nature documentary; where=locations all over the world",
			"show=Abbott Elementary; genre=workplace comedy; where=a school",
		},
		scripts: [][]string{
			{"O[show]: I've been binge-watching {show} and I can't stop.", "P: I keep hearing about it! Is it good?", "O[genre]: It's a {genre} set in {where}, and the show is so good.", "P: Okay, you've convinced me."},
		},
		later: [][]string{
			{"O: I finished the show and now I feel empty inside {haha}.", "P: The end-of-series blues!"},
		},
		qs: []string{
			"4[show] What show has {N} been binge-watching? => {Show}",
			"4[genre] What kind of show is {show}, as {N} described it? => A {genre}",
		},
	},
	{
		kind: "gift", when: "day",
		opts: []string{
			"gift=a silver necklace with a tiny compass; fromrel=grandma; meaning=So you always find your way home.; giftq=necklace",
			"gift=an old watch that belonged to my grandpa; fromrel={parentrel}; meaning=Time is the one thing we can't buy more of.; giftq=watch",
			"gift=a handmade quilt; fromrel=aunt; meaning=Every square is a memory of you.; giftq=quilt",
			"gift=a vintage film camera; fromrel={sibrel}; meaning=Start taking pictures again, you're too good to stop.; giftq=camera",
			"gift=a cast-iron skillet that's older than me; fromrel={parentrel}; meaning=Three generations of Sunday breakfasts. Your turn.; giftq=skillet",
		},
		scripts: [][]string{
			{"O[gift,when]: My {fromrel} gave me {gift} {when}. I keep looking at it.", "P: {aww} That's so special. Is there a story behind it?", "O[meaning]: There was a little card with it that said \"{meaning}\"", "P: That's beautiful, {N}."},
			{"O[when](a photo of {gift} on a wooden table): Look what I got {when}.", "P: It's lovely! Who's it from?", "O[gift,meaning]: My {fromrel}! The card said \"{meaning}\" and I teared up.", "P: {aww} Keep that forever."},
		},
		qs: []string{
			"4[gift] What did {N}'s {fromrel} give {him}? => {Gift}",
			"4[gift] Who gave {N} the {giftq}? => {His} {fromrel}",
			"4[meaning] What did the card with {N}'s {giftq} say? => \"{meaning}\"",
			"2[when] When did {N} receive the {giftq}? => {date}",
		},
		vp: "got the {giftq} from {his} {fromrel}", ing: "getting the {giftq}",
	},
	{
		kind: "diet", when: "span",
		opts: []string{
			"diet=vegetarian; openq=Would {N} enjoy a barbecue rib cook-off?; opena=Probably not, {he} is vegetarian now; why=I watched a documentary about factory farms and couldn't unsee it; whya=A documentary about factory farms; miss=bacon, honestly",
			"diet=gluten-free; openq=Would {N} enjoy a croissant-baking class in Paris?; opena=Probably not, since {he} eats gluten-free now; why=my doctor thinks gluten is behind my stomach problems; whya={His} doctor suspected gluten was causing stomach problems; miss=fresh bagels",
			"diet=dairy-free; openq=Would {N} enjoy a cheese-tasting evening?; opena=Probably not, {he} avoids dairy now; why=I finally admitted that cheese hates me; whya=Dairy was upsetting {his} stomach; miss=ice cream",
			"diet=plant-based; openq=Would {N} order a steak at a steakhouse?; opena=Unlikely, {he} eats plant-based now; why=my cholesterol numbers scared me; whya=High cholesterol; miss=cheeseburgers",
		},
		scripts: [][]string{
			{"O[diet,when]: I went {diet} {when}. So far, so good!", "P: {wow} What made you decide?", "O[why]: Honestly, I changed my diet because {why}.", "P: That makes sense. What do you miss most?", "O[miss]: {Miss}. I miss it so much."},
			{"O[when]: I changed how I eat {when}, and I feel better already.", "P: Oh yeah? What's the change?", "O[diet,why]: I'm {diet} now. {Why}.", "P: Good for you, {N}!"},
		},
		later: [][]string{
			{"O: I found a really good cookbook that fits how I eat now, it's been a game changer.", "P: Ooh, send me the name!"},
		},
		qs: []string{
			"4[diet] What diet did {N} switch to? => {Diet}",
			"4[diet] How has {N} changed the way {he} eats? => {He} went {diet}",
			"4[why] Why did {N} change {his} diet? => {Whya}",
			"4[miss] What food does {N} miss most since changing {his} diet? => {Miss}",
			"2[when] When did {N} go {diet}? => {date}",
			"3[diet] {openq} => {opena}",
		},
		vp: "went {diet}", ing: "going {diet}",
	},
	{
		kind: "dating", when: "day", needs: []string{"single"},
		avoid: []string{"this morning"},
		opts: []string{
			"how=a friend's birthday party; howa=At a friend's birthday party; datejob=a firefighter",
			"how=the climbing gym, of all places; howa=At the climbing gym; datejob=a math teacher",
			"how=a dating app, and I almost deleted it that morning; howa=On a dating app; datejob=a veterinarian",
			"how=a trivia night at the pub; howa=At a pub trivia night; datejob=an architect",
			"how=a volunteer cleanup at the beach; howa=At a beach cleanup; datejob=a marine biologist",
		},
		scripts: [][]string{
			{"O[fname,when]: Okay, I have gossip. I went on a date {when} with someone named {fname}, and it was... really nice?", "P: Stop!! Tell me everything. How did you meet?", "O[how]: We met at {how}. We talked for three hours.", "P: {aww} I'm so happy for you, {N}!"},
			{"O[when]: So I met someone {when}.", "P: WHAT. Who??", "O[fname,how]: {Fname}! We met at {how}. {Fname} is {datejob}.", "P: I love this for you. Keep me updated!"},
		},
		later: [][]string{
			{"O: {Fname} cooked me dinner last night, I think this might be serious.", "P: {aww} That's huge!"},
			{"P: How are things with {fname}?", "O: Really good, honestly. It's easy, you know?"},
		},
		qs: []string{
			"4[fname] Who did {N} start dating? => {Fname}",
			"4[how] How did {N} meet {fname}? => {Howa}",
			"2[when] When did {N} have {his} first date with {fname}? => {date}",
		},
		vp: "started dating {fname}", ing: "starting to date {fname}",
	},
	{
		kind: "kidnews", when: "day", needs: []string{"kid"}, repeat: true,
		avoid: []string{"this morning"},
		opts: []string{
			"event=school play; detail=played a singing tree; q=What role did {N}'s {kidrel} play in the school play?; a=A singing tree",
			"event=first soccer game; detail=scored a goal for the wrong team; q=What happened at {N}'s {kidrel}'s first soccer game?; a={Kidhe} scored a goal for the wrong team",
			"event=science fair; detail=built a volcano and won second place; q=How did {N}'s {kidrel} do at the science fair?; a=Won second place with a volcano",
			"event=spelling bee; detail=made it to the final round and went out on the word 'rhythm'; q=Which word knocked {N}'s {kidrel} out of the spelling bee?; a=Rhythm",
			"event=piano recital; detail=played a piece called 'Swans on the Lake' without a single mistake; q=What piece did {N}'s {kidrel} play at the recital?; a=Swans on the Lake",
			"event=swim meet; detail=won a blue ribbon in the backstroke; q=What did {N}'s {kidrel} win at the swim meet?; a=A blue ribbon in the backstroke",
		},
		scripts: [][]string{
			{"O[event,when]: {Kid} had {kidhis} {event} {when}!", "P: {aww} How did it go?", "O[detail]: {Kidhe} {detail}. I was the loudest parent there {haha}.", "P: {Haha}! As you should be!"},
			{"O[event,when](a photo of a child smiling at a school event): Proud parent moment at the {event} {when}!", "P: {aww} Look at {kid}! How did it go?", "O[detail]: {Kidhe} {detail}.", "P: That's adorable. Tell {kid} I said congrats!"},
		},
		later: [][]string{
			{"O: {Kid} has been reenacting the big day every night at dinner {haha}.", "P: {aww} A star is born."},
		},
		qs: []string{
			"4[detail] {q} => {a}",
			"2[when] When was {N}'s {kidrel}'s {event}? => {date}",
		},
		vp: "went to {kid}'s {event}", ing: "going to {kid}'s {event}",
	},
	{
		kind: "instrument", group: "activity",
		opts: []string{
			"inst=the cello; instq=cello; piece=the prelude from Bach's first cello suite; dur=eight months",
			"inst=guitar; instq=guitar; piece=Blackbird by the Beatles; dur=about a year",
			"inst=the violin; instq=violin; piece=Ashokan Farewell; dur=six years",
			"inst=the piano; instq=piano; piece=Clair de Lune; dur=two years",
			"inst=the ukulele; instq=ukulele; piece=Somewhere Over the Rainbow; dur=three months",
			"inst=the drums; instq=drums; piece=the beat from Come Together; dur=five months",
			"inst=the saxophone; instq=saxophone; piece=Take Five; dur=a year and a half",
		},
		scripts: [][]string{
			{"O[inst,dur]: I've been learning {inst} for {dur} now, and I finally got through a whole piece without a squeak.", "P: {wow} Which piece?", "O[piece]: {Piece}. Well, the first page of that piece {haha}.", "P: That still counts!"},
			{"O[piece]: I've been practicing {piece} every night, my neighbors must hate me.", "P: {Haha}! On what?", "O[inst,dur]: {Inst}! I've been learning it for {dur}.", "P: That's so cool, {N}. Play for me sometime?"},
		},
		later: [][]string{
			{"O: My teacher says my posture is finally not terrible {haha}.", "P: Progress!"},
			{"O: I skipped practice all week and my fingers noticed.", "P: Back at it tomorrow!"},
		},
		qs: []string{
			"4[inst] What instrument is {N} learning? => {Inst}",
			"4[piece] What piece has {N} been practicing? => {Piece}",
			"2[dur] How long has {N} been playing {instq}? => {Dur} (as of {sessmonth})",
			"3[inst] Would {N} enjoy going to a live music recital? => Likely yes; {he} plays {inst}",
		},
		item: "playing {instq}", itemTag: "inst",
	},
	{
		kind: "shop", when: "day",
		opts: []string{
			"product=hand-poured candles; shop=Wick & Willow; first=a lavender candle to someone in Ohio",
			"product=crocheted plant hangers; shop=Loop and Leaf; first=a set of three to a teacher in Maine",
			"product=enamel pins of cats in little hats; shop=Hat Cat Studio; first=two pins to a student in Texas",
			"product=hand-bound notebooks; shop=Fold & Thread; first=a leather journal to a writer in Oregon",
			"product=custom pet portraits; shop=Paws in Paint; first=a portrait of a bulldog",
		},
		scripts: [][]string{
			{"O[product,shop]: I opened an online shop selling {product}! It's called {shop}.", "P: {wow} When did you launch?", "O[when,first]: {When}! My first sale was {first}.", "P: Your first sale! That's huge."},
			{"O[when,first]: Someone actually bought something from my shop {when}! {First}.", "P: Wait, what shop?", "O[product,shop]: I sell {product} online, the shop's called {shop}.", "P: That's amazing, {N}! Send me the link."},
		},
		later: [][]string{
			{"O: Orders have been slow this week, but I'm trying not to stress.", "P: It takes time to build! You're doing great."},
		},
		qs: []string{
			"4[product] What does {N} sell online? => {Product}",
			"4[shop] What is {N}'s online shop called? => {Shop}",
			"4[first] What was {N}'s first sale? => {First}",
			"2[when] When did {N} make {his} first sale? => {date}",
		},
		vp: "opened {his} online shop", ing: "opening {his} online shop",
	},
	{
		kind: "award", when: "day",
		opts: []string{
			"award=employee of the month; fora=staying late all through the busy season; foraa=Staying late through the busy season; awardq=award at work",
			"award=a promotion to team lead; fora=the project I've been grinding on all year; foraa=The project {he} worked on all year; awardq=promotion",
			"award=first place in the chili cook-off at work; fora=my smoky three-bean chili; foraa={His} smoky three-bean chili; awardq=cook-off",
			"award=an award for ten years of service; fora=just not leaving {haha}; foraa=Ten years of service; awardq=service award",
			"award=a grant for my community project; fora=a proposal to fix up the playground near my place; foraa=A proposal to fix up a playground; awardq=grant",
		},
		scripts: [][]string{
			{"O[award,when]: I have news! I got {award} at work {when}.", "P: {wow} What was it for?", "O[fora]: For {fora}. I honestly didn't expect it.", "P: You totally deserve it, {N}."},
		},
		qs: []string{
			"4[award] What did {N} receive at work? => {Award}",
			"4[award] What did {N} get at work recently? => {Award}",
			"4[fora] What did {N} get the {awardq} for? => {Foraa}",
			"2[when] When did {N} get the {awardq}? => {date}",
		},
		vp: "got the {awardq}", ing: "getting the {awardq}",
	},
	{
		kind: "festival", when: "day",
		avoid: []string{"this morning"},
		opts: []string{
			"fest=Diwali; months=10,11; did=lit diyas all around the house and made way too many sweets; sweet=besan ladoos",
			"fest=Lunar New Year; months=1,2; did=had a huge family dinner and gave out red envelopes; sweet=sesame balls",
			"fest=Hanukkah; months=12; did=lit the menorah with my whole family and fried latkes; sweet=sufganiyot",
			"fest=Eid; months=4,5; did=went to prayers in the morning and visited every relative in town; sweet=maamoul",
			"fest=Día de los Muertos; months=11; did=built an altar for my grandparents with marigolds; sweet=pan de muerto",
			"fest=Thanksgiving; months=11,12; did=hosted twelve people in my tiny apartment; sweet=pumpkin pie",
		},
		scripts: [][]string{
			{"O[fest,when]: We celebrated {fest} {when}! We {did}.", "P: {aww} That sounds so warm. Did you cook?", "O[sweet]: I made {sweet} for {fest}, which is basically my one job every year {haha}.", "P: Save me some next time!"},
		},
		qs: []string{
			"4[fest] Which holiday did {N} celebrate with {his} family? => {Fest}",
			"4[sweet] What did {N} make for {fest}? => {Sweet}",
			"2[when] When did {N} celebrate {fest}? => {date}",
			"3[fest] What cultural or religious tradition might {N}'s family follow? => One that celebrates {fest}",
		},
		vp: "celebrated {fest}", ing: "celebrating {fest}",
	},
	{
		kind: "plan", when: "next",
		opts: []string{
			"plan=run my first marathon; plana=Run {his} first marathon; planq=first marathon; where=in Chicago; wherea=In Chicago",
			"plan=go to my ten-year high school reunion; plana=Go to {his} ten-year high school reunion; planq=high school reunion; where=back in my hometown; wherea=In {his} hometown",
			"plan=take my {parentrel} to Ireland; plana=Take {his} {parentrel} to Ireland; planq=trip to Ireland with {his} {parentrel}; where=a road trip around the west coast of Ireland; wherea=On the west coast of Ireland",
			"plan=get my scuba certification; plana=Get {his} scuba certification; planq=scuba certification dive; where=at a quarry two hours away; wherea=At a quarry two hours away",
			"plan=play my first open mic night; plana=Play {his} first open mic night; planq=first open mic; where=at the coffee shop downtown; wherea=At a coffee shop downtown",
		},
		scripts: [][]string{
			{"O[plan,when]: So I'm doing it, nervous or not. I'm going to {plan} {when}! I've been preparing for ages.", "P: {wow} Are you nervous?", "O[where]: Terrified. It's {where}, so at least I have time to prepare.", "P: You're going to do great."},
		},
		later: [][]string{
			{"O: Only a few weeks until the big thing, I'm trying not to think about it.", "P: You've got this!"},
		},
		qs: []string{
			"4[plan] What big thing is {N} preparing for? => {Plana}",
			"4[plan] What is {N} nervous about doing? => {Plana}",
			"2[when] When is {N}'s {planq} scheduled? => {date}",
			"4[where] Where will {N}'s {planq} take place? => {Wherea}",
		},
	},
	{
		kind: "language", group: "activity", when: "span",
		opts: []string{
			"lang=Japanese; app=flashcards and a tutor online; why=I want to visit my friend in Osaka and not be useless; whya=To visit a friend in Osaka",
			"lang=Italian; app=a language app on my commute; why=my best friend's family speaks it and I want to keep up at dinner; whya={His} best friend's family speaks it",
			"lang=Portuguese; app=a conversation group at the library; why=I want to travel around Brazil next year; whya={He} wants to travel around Brazil",
			"lang=Korean; app=K-dramas with subtitles, and a textbook; why=I got obsessed with Korean TV and want to understand it; whya=To understand Korean TV shows",
			"lang=French; app=a weekly class at the French institute; why=I took it in high school and regret giving up; whya={He} regretted giving it up after high school",
			"lang=Spanish; app=a language exchange with a coworker; why=half the people I work with speak it and I want to keep up; whya=Many of {his} coworkers speak it",
		},
		scripts: [][]string{
			{"O[lang,when]: I started learning {lang} {when}!", "P: Ooh, how are you learning?", "O[app]: I'm learning with {app}. Slow progress, but progress.", "P: What got you started?", "O[why]: Honestly, I'm learning it because {why}."},
			{"O[app]: I've been doing {app} every day, and I can finally order food without panicking.", "P: Wait, in what language?", "O[lang,why]: {Lang}! I'm learning it because {why}.", "P: {wow}"},
		},
		later: [][]string{
			{"O: I dreamed in another language last night for a second! Basically fluent now {haha}.", "P: {Haha}! That's a real milestone though!"},
		},
		qs: []string{
			"4[lang] What language is {N} learning? => {Lang}",
			"4[app] How is {N} learning {lang}? => {App}",
			"4[why] Why is {N} learning a new language? => {Whya}",
			"2[when] When did {N} start learning {lang}? => {date}",
		},
		vp: "started learning {lang}", ing: "starting to learn {lang}",
		item: "learning {lang}", itemTag: "lang",
	},
	{
		kind: "museum", when: "day",
		avoid: []string{"last night"},
		opts: []string{
			"museum=the natural history museum; exhibit=a dinosaur exhibit with a full T. rex skeleton; fav=the T. rex, obviously",
			"museum=the art museum; exhibit=an Impressionist exhibit with a bunch of Monet paintings; fav=the water lilies",
			"museum=the science center; exhibit=a space exhibit with an actual moon rock; fav=touching the moon rock",
			"museum=the aquarium; exhibit=a new jellyfish exhibit; fav=the glowing moon jellies",
			"museum=the history museum; exhibit=an exhibit on the city's old streetcars; fav=sitting in a real streetcar from 1920",
		},
		scripts: [][]string{
			{"O[museum,when]: I went to {museum} {when}, they have {exhibit}.", "P: Ooh, fun! What was your favorite part?", "O[fav]: My favorite part was {fav}. I stood there for ages.", "P: {nice}"},
			{"O[when](a photo of people looking at a large display in a museum hall): Played tourist in my own city {when}.", "P: Where's that?", "O[museum,exhibit]: {Museum}! There's {exhibit}.", "P: That's on my list now."},
		},
		qs: []string{
			"4[exhibit] What exhibit did {N} see at {museum}? => {Exhibit}",
			"4[fav] What was {N}'s favorite part of the museum visit? => {Fav}",
			"2[when] When did {N} visit {museum}? => {date}",
			"3[museum] Would {N} enjoy a guided museum tour on a trip abroad? => Likely yes; {he} went to {museum} at home",
		},
		vp: "visited {museum}", ing: "visiting {museum}",
	},
}

// topicByKind finds a topic.
func topicByKind(kind string) *topic {
	for _, t := range topics {
		if t.kind == kind {
			return t
		}
	}
	panic("evalgen: no topic " + kind)
}
