package main

// The small talk of the LoCoMo conversations: the turns that hold no
// answer but share the facts' vocabulary (names, work, family, pets, the
// city, weekends, classes, trips).
//
// A script is a list of lines "WHO[tags](caption): text": WHO is O (the
// one who brings the topic up) or P (the other speaker); tags name the
// facts a line reveals; the caption, when given, makes the line a shared
// photo. In a line, {N} is O's name and {O} is P's name; {he}, {his},
// {him} are O's pronouns.

// reactionPools are picked at random wherever a template names them.
var reactionPools = map[string][]string{
	"wow": {"That's awesome!", "Wow, congrats!", "No way, that's amazing!", "Yay, good for you!", "Whoa, that's huge!",
		"That's so exciting!", "Love that!", "Amazing!!", "Oh wow, go you!", "That's incredible!", "Okay, that's so cool!",
		"Yesss!", "Ahh, I'm so happy for you!", "That's fantastic news!"},
	"aww": {"Aww!", "Oh my gosh, cute!", "Stop, that's adorable!", "Awww, I love it!", "Oh, my heart!", "Cuteness overload!"},
	"oof": {"Oh no!", "Ugh, I'm so sorry.", "Oof, that's rough.", "Yikes.", "That's the worst.", "Oh no, that sounds awful.",
		"Ugh, poor you."},
	"haha": {"haha", "lol", "hahaha", "lmao", "ha"},
	"ask": {"How did that go?", "How are you feeling about it?", "Was it hard?", "Tell me everything!", "How was it?",
		"What was that like?"},
	"busy": {"swamped with work", "running around after everyone", "trying to catch up on sleep", "juggling a million things",
		"in a bit of a rut honestly", "enjoying a slow week for once", "drowning in laundry lol", "counting down to the weekend"},
	"nice": {"That sounds really nice.", "I love that for you.", "Honestly that sounds perfect.", "Good for you!",
		"That's so sweet.", "You deserve it."},
}

// openers start a session: O greets, P answers.
var openers = [][]string{
	{"O: Hey {O}! It's been a minute. How are you doing?", "P: Hey {N}! Pretty good, just {busy}. What's new with you?"},
	{"O: Hi {O}! Sorry I've been so quiet lately. How's everything?", "P: No worries at all! Things are okay here, {busy}. How about you?"},
	{"O: {O}!! I've missed our chats. What's going on with you?", "P: {N}! I've missed them too. Honestly I've been {busy}."},
	{"O: Hey hey! Got a few minutes to catch up?", "P: Always, {N}! I was literally just thinking about you."},
	{"O: Good morning, {O}! Coffee in hand, ready to catch up.", "P: Morning, {N}! Same here, I'm on cup number two already."},
	{"O: Hi {O}, how was your week?", "P: Long! I've been {busy}. Yours?"},
	{"O: Hey you! Long time no talk.", "P: I know, right? Life has been a lot. Good to hear from you, {N}."},
	{"O: Evening, {O}! Finally sitting down after a crazy day.", "P: Ha, same. Glad we're chatting, {N}. How are things?"},
	{"O: {O}, hi! Do you have time for a quick catch-up?", "P: For you, always. What's up, {N}?"},
	{"O: Hey {O}! How's life treating you these days?", "P: Not bad at all! {Busy}, but good. What about you, {N}?"},
	{"O: Hiii! It feels like forever since we last talked.", "P: It really does! Fill me in, {N}."},
	{"O: Hey {O}, I hope your week is going better than mine lol.", "P: {Haha}, that bad? I'm okay, {busy}."},
	{"O: Hey! Are you free to chat for a bit?", "P: Yes! Perfect timing, I just finished dinner."},
	{"O: {O}! Guess who finally has a free evening.", "P: Look at you! How are you, {N}?"},
	{"O: Hi! I'm on my lunch break, so I have twenty minutes to catch up.", "P: Let's make them count! How's everything, {N}?"},
	{"O: Hi hi! How did the rest of your week go?", "P: Honestly pretty good. I've been {busy}, but good."},
	{"O: Hey {O}, how's your {weekday} going?", "P: Not bad, {N}! Better now. What's up?"},
	{"O: Sorry it took me so long to message back, it's been a week.", "P: No stress at all, {N}. What's been going on?"},
}

// closers end a session: O says goodbye, P answers.
var closers = [][]string{
	{"O: Okay, I should get going. Talk soon, {O}!", "P: Bye {N}! Take care of yourself."},
	{"O: This was so nice. Let's not wait so long next time!", "P: Deal! Talk to you soon, {N}."},
	{"O: Alright, dinner's not going to cook itself. Catch you later!", "P: Haha enjoy! Bye!"},
	{"O: I have to run, but thanks for catching up, {O}.", "P: Anytime! Have a great rest of your day."},
	{"O: Okay, my battery is about to die lol. Talk later!", "P: Go charge it! Bye {N}!"},
	{"O: I'm falling asleep, so I'll say goodnight. So good to talk!", "P: Night, {N}! Sleep well."},
	{"O: Let's catch up again soon, okay? Miss you!", "P: Miss you too! Talk soon."},
	{"O: Gotta go, but keep me posted on everything!", "P: Will do! You too, {N}."},
	{"O: Okay, back to the grind for me. Bye for now!", "P: Good luck! Bye!"},
	{"O: I'll let you go. Take care, {O}!", "P: You too, {N}. Talk soon!"},
	{"O: Ugh, I have a call in five minutes. Let's pick this up soon!", "P: Go, go! Good luck on the call."},
	{"O: Okay, I need to start dinner before everyone gets hangry. Bye!", "P: {Haha}, good luck. Bye {N}!"},
	{"O: This was exactly what I needed today. Thank you, {O}.", "P: Same here. Talk soon, {N}!"},
	{"O: I'm heading out for a walk, talk to you later!", "P: Enjoy! Bye!"},
	{"O: Okay, laundry is calling. Always a pleasure!", "P: Ha, the glamorous life. Bye, {N}!"},
}

// bridges are said by the speaker who did not bring the last topic up,
// before the other one brings the next up.
var bridges = []string{
	"So what else is going on with you?",
	"Anything else new on your end?",
	"Okay, what else is happening in your world?",
	"Haha yes. So tell me, what else is new?",
	"Enough about that, how are you doing otherwise?",
	"What else have you been up to?",
	"I feel like you have more news, spill.",
	"And how are things otherwise?",
	"Okay, your turn. What's new?",
	"How about you, anything exciting happening?",
	"What's been keeping you busy lately?",
	"Anyway, how have you been otherwise?",
	"Any other news from your side?",
}

// transitions start a new topic by the one who just spoke.
var transitions = []string{"Oh, also! ", "Anyway! ", "Oh, other news! ", "Okay, random update: ", "Before I forget: ",
	"Oh! ", "Speaking of news: ", "Anyway, on my end: "}

// seasonWeather are weather remarks by season, each a line of O's.
var seasonWeather = map[string][]string{
	"winter": {
		"It snowed again here last night, I'm so over scraping my windshield.",
		"It's been freezing all week. I've basically been living in my big sweater.",
		"The days are so short right now, it's dark by five and it kills my motivation.",
		"We had an ice storm and half the street lost power for a day.",
		"Winter is dragging this year. I miss sunlight.",
		"My car wouldn't start this morning because of the cold. Had to get a jump.",
		"There's a wind chill warning today, so I'm not leaving the house unless I have to.",
	},
	"spring": {
		"The trees are finally blooming here, but my allergies are not thrilled.",
		"It's been raining every single afternoon this week.",
		"It was warm enough to eat outside today, first time this year!",
		"Spring cleaning mode has fully taken over my weekend.",
		"Everything is green again, it makes such a difference to my mood.",
		"It went from freezing to seventy degrees in two days, I don't know what to wear.",
		"The birds outside my window start singing at five in the morning now.",
	},
	"summer": {
		"It's been so hot here, I've been hiding inside with the fan on full blast.",
		"We had a huge thunderstorm last night, the whole house shook.",
		"The long evenings are the best part of summer, I sat on the porch until ten.",
		"It's sticky and humid, I've showered three times today lol.",
		"I got a mild sunburn just walking to the store, so that's where I'm at.",
		"The AC at my place broke during the hottest week of the year, of course.",
		"The ice cream truck has been coming down my street every evening and I have no willpower.",
	},
	"fall": {
		"The leaves are turning here, it's so pretty on my walk to work.",
		"It's finally sweater weather! I've been waiting for this.",
		"It got chilly so fast, I wasn't ready to turn the heat on.",
		"Everyone here is already putting up pumpkins and I'm here for it.",
		"It's been windy and gray all week, perfect soup weather.",
		"It gets dark so early now, I keep thinking it's bedtime at six.",
		"We had our first frost last night, the grass was all sparkly this morning.",
	},
}

// smallTalk are exchanges that hold no fact a question asks about. Those
// naming a var the speaker lacks (a kid, a partner, a pet) are skipped
// for that speaker.
var smallTalk = [][]string{
	{"O: {weather}", "P: Ha, I feel that. At least it gives us something to talk about."},
	{"O: {weather}", "P: Oh man. It's been weird here too, I never know what to wear."},
	{"O: {weather} How's the weather by you?", "P: Honestly not much better! I'll trade you though."},
	{"O: Work has been nonstop this week. I'm counting down the hours to Friday.", "P: Ugh, same. Are you doing anything fun this weekend?", "O: Sleeping in, hopefully. That's the whole plan lol."},
	{"O: Long day at {workplace} today. I need a nap and a snack, in that order.", "P: Sounds like you earned both! Anything interesting happen?", "O: Not really, just a lot of small fires to put out. The usual."},
	{"O: My {sibrel} called me for an hour last night just to complain about {sibpro} boss lol.", "P: {Haha}, siblings are the best therapists. Is {sib} doing okay?", "O: Yeah, just venting. We're going to get dinner next week."},
	{"O: {Kid} has been asking a million questions a day. Today's was why the sky doesn't fall down.", "P: {Haha}, what did you tell {kidhim}?", "O: I said I'd look it up. Bought myself some time."},
	{"O: {Kid} has a cold so it's been a couch-and-cartoons kind of day.", "P: {oof} I hope {kidhe} feels better soon.", "O: Thanks! {Kidhe}'s already bouncing around, so I think it's passing."},
	{"O: {Partner} and I finally had a date night, first one in ages.", "P: {aww} Where did you go?", "O: Just a little Italian place near us, but it was so nice to talk without distractions."},
	{"O: {Partner} made pancakes this morning, which means something must be up lol.", "P: {Haha}, suspicious! Enjoy it while it lasts."},
	{"O: {Pet} has decided that 6am is breakfast time, every single day.", "P: {Haha}, pets don't believe in weekends."},
	{"O: Walking {pet} in the rain this morning was an adventure.", "P: Haha, I bet {pet} loved every puddle."},
	{"O: I made a giant pot of chili and now I have lunch sorted for the week.", "P: Smart! Meal prep always makes me feel like I have my life together.", "O: It's the only thing that does, honestly lol."},
	{"O: I've been trying to go to bed earlier, but then I end up scrolling until midnight.", "P: That's me every night. The phone is the enemy.", "O: I'm going to try leaving it in the kitchen. Wish me luck."},
	{"O: Have you been watching anything good? I need something new.", "P: I just finished a true crime documentary series. It was creepy but I couldn't stop.", "O: Ooh, send me the name. I love a good mystery."},
	{"O: The grocery store was a madhouse today. Why does everyone shop at the same time as me?", "P: {Haha}, it's a law of the universe.", "O: I went in for milk and came out with forty dollars of snacks."},
	{"O: My {parentrel} finally learned how to video call, so now {parentpro} calls every day lol.", "P: {aww}, that's sweet though. Is {parentpro} enjoying it?", "O: Way too much. I get a lot of close-ups of {parenthis} forehead."},
	{"O: Traffic in {city} today was ridiculous. I sat on the same block for twenty minutes.", "P: {oof} That's the worst. Did you at least have a good podcast?", "O: I listened to the same song on repeat, so... kind of?"},
	{"O: There's a new coffee place near my place in {city}, and their oat latte is dangerously good.", "P: Uh oh, that's how it starts. You'll be there every day.", "O: I already know the barista's name, so yeah, it's too late."},
	{"O: I cleaned out my closet and found clothes I forgot I owned.", "P: Free shopping! Anything good?", "O: One very nice jacket and about ten shirts I'm donating."},
	{"O: I've been trying to drink more water. It's going... okay.", "P: {Haha}, I bought one of those huge bottles with the times on the side.", "O: Does it work?", "P: Sometimes! Mostly it guilts me."},
	{"O: I've been reading before bed instead of scrolling, and I'm sleeping so much better.", "P: That's a great habit. I should try it.", "O: Start small, like ten pages. That's what I did."},
	{"O: My phone screen cracked this morning. Classic Monday energy.", "P: {oof} Is it still usable?", "O: Barely. I'm pretending it's a design choice."},
	{"O: I've been so tired lately. I think I need an actual vacation.", "P: You really do. Even a long weekend would help.", "O: Yeah, I'm going to look at my calendar and force myself to take one."},
	{"O: My neighbors are renovating and the drilling starts at eight every morning.", "P: Ugh, that's brutal. How long will it take?", "O: They said 'a few more weeks,' which probably means months lol."},
	{"O: I tried a new recipe for dinner and it was a total flop.", "P: {Haha}, what happened?", "O: I doubled the salt by accident. We ordered pizza."},
	{"O: Work is a bit calmer this week, thankfully. I actually left on time yesterday.", "P: That's a rare treat! What did you do with all that free time?", "O: Honestly, I just sat on the couch and stared at the wall. It was glorious."},
	{"O: I went for a walk around the neighborhood after dinner, it helped clear my head.", "P: That sounds nice. I need to do that more.", "O: It's free therapy, seriously."},
	{"O: My {sibrel} and I are planning a surprise for our {parentrel}'s birthday.", "P: {aww} What are you thinking?", "O: Maybe a dinner with the whole family. We're still arguing about where lol."},
	{"O: I spent the whole weekend doing absolutely nothing and I regret nothing.", "P: That's the best kind of weekend honestly.", "O: My couch and I are very close now."},
	{"O: Someone at {workplace} brought homemade cookies today and it made my whole week.", "P: The way to everyone's heart! What kind?", "O: Oatmeal chocolate chip. I had three. No regrets."},
	{"O: {Friend} and I had brunch on Sunday, we hadn't seen each other in months.", "P: Oh nice! How's {friend} doing?", "O: Good! Busy like everyone, but it was so fun to catch up."},
	{"O: I've been trying to cook more at home to save money.", "P: Same! Food delivery was eating my whole budget.", "O: Right? I'm doing a lot of pasta lately lol."},
	{"O: I finally fixed the squeaky door in my bedroom. Took me three YouTube videos.", "P: {Haha}, that's a win! Handy {N}."},
	{"O: I've been waking up super early for no reason lately.", "P: Might as well enjoy the quiet! Are you using the time?", "O: Mostly just drinking coffee and watching the sunrise, which is honestly nice."},
	{"O: My laptop decided to update itself right before a big call today.", "P: Classic. Did you make it?", "O: Two minutes late and very sweaty lol."},
	{"O: I went to the farmers market this morning, the strawberries were perfect.", "P: Ooh, lucky! Did you get anything else?", "O: Some honey and way too much bread."},
	{"O: Do you ever just need a day to do nothing? Because that was my Sunday.", "P: Absolutely. Rest is productive too!", "O: That's what I keep telling myself."},
	{"O: I keep meaning to call you back and then life happens.", "P: Don't worry about it, {N}. We always pick right back up."},
	{"O: I started a little journal at night. Just three lines about my day.", "P: I love that. Is it helping?", "O: It is, actually. It makes me notice the good bits."},
	{"O: My {parentrel} sent me a care package with homemade jam, I almost cried.", "P: {aww}, that's so thoughtful!", "O: {Parentpro} always knows when I need a little pick-me-up."},
	{"O: I got a parking ticket today. Five minutes over. Five!", "P: {oof} That's so annoying.", "O: The universe is testing me this week."},
	{"O: I've been listening to an audiobook on my commute, it makes the drive fly by.", "P: What are you listening to?", "O: A mystery, I don't even remember the title lol, but it's gripping."},
	{"O: I need to plan something fun for next month, I've got nothing on the calendar.", "P: We should plan something together! Even just a day out.", "O: Yes! Let's figure it out soon."},
}

// photoTalk are small-talk photos (captions that share words with the
// facts' photos), each for a season or any ("").
var photoTalk = []struct {
	season string
	script []string
}{
	{"", []string{"O(a photo of a cup of coffee on a wooden table next to a window): My happy place this morning.", "P: That looks so cozy. Enjoy it!"}},
	{"", []string{"O(a photo of a sunset over a row of houses): The sky was on fire on my walk home tonight.", "P: Wow, gorgeous! Nature showing off."}},
	{"", []string{"O(a photo of a plate of pasta with basil): Dinner tonight. Not bad for a Tuesday, right?", "P: Okay, chef! That looks delicious."}},
	{"", []string{"O(a photo of a stack of books on a nightstand): My to-read pile is getting out of hand.", "P: {Haha}, mine too. Which one's next?", "O: Whichever one I grab first, honestly."}},
	{"winter", []string{"O(a photo of a snowy street with parked cars): Woke up to this.", "P: Brrr! Stay warm."}},
	{"", []string{"O(a photo of a messy desk with a laptop and sticky notes): This is what my brain looks like right now.", "P: {Haha}, relatable. Hang in there."}},
	{"", []string{"O(a photo of a park with tall trees and a path): Found a new walking trail near my place.", "P: That looks peaceful. Perfect for a weekend stroll."}},
	{"spring", []string{"O(a photo of pink blossoms on a tree branch): The tree outside my window finally bloomed.", "P: So pretty! Spring is really here."}},
	{"summer", []string{"O(a photo of a glass of iced tea on a porch railing): Surviving the heat one iced tea at a time.", "P: Smart. Stay cool!"}},
	{"fall", []string{"O(a photo of orange and red leaves on a sidewalk): My walk to work looks like this now.", "P: Ahh, fall colors are the best."}},
	{"", []string{"O(a photo of a dog looking out of a car window): Saw this guy at a red light and it made my day.", "P: {Haha}, the ears! Love him."}},
	{"", []string{"O(a photo of a half-finished jigsaw puzzle on a dining table): This puzzle has taken over my whole table.", "P: How many pieces?", "O: A thousand. I regret everything {haha}."}},
	{"winter", []string{"O(a photo of a bowl of soup next to a window with frost on it): Soup weather.", "P: Looks perfect. What kind?", "O: Chicken noodle, my {parentrel}'s recipe."}},
	{"summer", []string{"O(a photo of a crowded beach with umbrellas): Went to the beach and so did everyone else apparently.", "P: {Haha}, summer weekends!"}},
}

// foods fill {food} in small talk.
var foods = []string{"tacos", "ramen", "pho", "pizza", "curry", "dumplings", "a giant salad", "pancakes", "sushi",
	"barbecue", "falafel", "a grilled cheese", "pad thai", "fried chicken"}

// elsewhere are places small talk mentions that no speaker travels to.
var elsewhere = []string{"Costa Rica", "Greece", "Vancouver", "Morocco", "Peru", "Ireland", "Thailand", "Montreal",
	"Croatia", "Sicily"}

// moreTalk are more small talk, with the facts' words in other senses:
// someone else's trip, pet, class, move or race.
var moreTalk = [][]string{
	{"O: I walked past a new {food} place on my way home and it smelled amazing.", "P: Did you go in?", "O: Not yet, but it's on my list."},
	{"O: A coworker just got back from {away} and now I have serious travel envy.", "P: Ugh, same. I want to go everywhere.", "O: Someday! I'm making a list."},
	{"O: The dog next door barks every single time I open my car door.", "P: {Haha}, he's just saying hi.", "O: Very loudly. At 7am."},
	{"O: I saw a flyer for a dance class at the library, it looked fun.", "P: You should try it! What's the worst that could happen?", "O: Me, falling over in front of strangers {haha}."},
	{"O: There's a charity run in my neighborhood this weekend, so the streets will be closed.", "P: Oh, fun to watch at least! Cheer them on for me.", "O: I'll bring a cowbell."},
	{"O: My {sibrel} keeps saying {sibhe} wants a dog.", "P: Ooh, what kind?", "O: No idea, {sib} changes {sibpro} mind every week."},
	{"O: I started a new book but I'm only ten pages in.", "P: What's it about?", "O: Some thriller a coworker lent me, too early to tell."},
	{"O: I keep seeing ads for concerts I definitely can't afford {haha}.", "P: The algorithm knows your weaknesses.", "O: It really does."},
	{"O: My car made a weird noise this morning. I'm choosing to pretend I didn't hear it.", "P: {Haha}, classic. Maybe get that checked though!", "O: Yeah, yeah, I will."},
	{"O: Someone at {workplace} is training for a marathon and won't stop talking about it.", "P: {Haha}, marathon people are like that.", "O: I'm happy for them, I just don't need the mile splits."},
	{"O: We had a fire drill at {workplace} today and it took forty minutes.", "P: Oh no, in this weather?", "O: Yes. I'm still recovering."},
	{"O: I've been craving {food} all week.", "P: That settles it, you know what you're having for dinner.", "O: {Haha}, you're a bad influence."},
	{"O: My {parentrel} wants me to come home for the holidays, I need to look at flights.", "P: Book early! They only get worse.", "O: I know, I know."},
	{"O: I finally cleaned out my car. Found three water bottles and a single sock.", "P: {Haha}, where does the other sock go? It's a mystery."},
	{"O: I tried meditating for ten minutes this morning. I lasted four.", "P: Four is a start!", "O: That's what I told myself."},
	{"O: {Friend} is moving away next month and I'm kind of sad about it.", "P: Aw, that's hard. Where to?", "O: Somewhere with better jobs, apparently. I'll visit though."},
	{"O: I think I need a new hobby. I've been stuck in a rut.", "P: What kind of thing are you thinking?", "O: No idea! Something with my hands, maybe."},
	{"O: {Friend} just adopted a cat and sends me pictures every hour.", "P: {Aww}, honestly that's the best kind of spam.", "O: It really is."},
	{"O: I had the weirdest dream that I was late for a final exam. I haven't been in school for years!", "P: {Haha}, that dream never goes away."},
	{"O: Got my hair cut today. It's shorter than I wanted but it'll grow.", "P: I bet it looks great!", "O: Ask me again in two weeks {haha}."},
	{"O: The power went out for two hours last night, so we played cards by candlelight.", "P: That actually sounds kind of cozy!", "O: It was, until the fridge started beeping."},
	{"O: I signed up for a gym membership. Now I just have to actually go {haha}.", "P: That's the hard part! Go once this week.", "O: Okay, once. Deal."},
	{"O: My neighbor's garden puts mine to shame. She grows everything.", "P: {Haha}, maybe she'll share some tomatoes.", "O: I'm working on it."},
	{"O: I've been meaning to call {sib}, but we keep missing each other.", "P: Send a voice note! That's what I do with my family.", "O: Good idea."},
	{"O: I'm trying to cook one new thing every week.", "P: Ooh, what was this week's?", "O: {Food}. It was... edible {haha}."},
	{"O: Rain ruined my plans to go hiking on Saturday.", "P: {oof} Did you do anything fun instead?", "O: I napped. Very productive."},
	{"O: My favorite coffee mug broke this morning and I'm in mourning.", "P: Oh no! Rest in peace, mug.", "O: It had a good run."},
	{"O: {Kid} wants a puppy so badly. I keep saying maybe.", "P: {Haha}, 'maybe' means yes eventually.", "O: That's what I'm afraid of."},
	{"O: {Partner} and I can't agree on what color to paint the hallway.", "P: {Haha}, the classic couple argument.", "O: We've been staring at paint swatches for a week."},
	{"O: I keep buying plants and then forgetting to water them.", "P: Get a cactus! They forgive you.", "O: I've killed a cactus before, honestly."},
	{"O: I watched a documentary about the ocean last night and now I want to learn to dive.", "P: Oh, that would be so cool!", "O: Maybe someday. Mostly I just stared at the jellyfish."},
	{"O: The elevator in my building has been broken for a week, so stairs it is.", "P: Free workout {haha}.", "O: That's the only way I'm getting through it."},
	{"O: I finally booked a dentist appointment. Look at me, adulting.", "P: {Haha}, proud of you! When is it?", "O: Next Thursday. Already dreading it."},
	{"O: I got stuck in a meeting today that could have been an email.", "P: The worst. How long?", "O: Ninety minutes. Ninety!"},
	{"O: I made banana bread with the sad bananas on my counter.", "P: The best use of sad bananas!", "O: It's almost gone already."},
	{"O: A stranger complimented my jacket today and it made my whole week.", "P: {Aww}, I love when that happens."},
	{"O: I'm so ready for the long weekend.", "P: Same! Any plans?", "O: Absolutely none, and I'm proud of it."},
	{"O: I think I'm finally getting better at saying no to extra work.", "P: That's a big deal! Boundaries are hard.", "O: They really are. Baby steps."},
	{"O: My {parentrel} started taking a pottery class and is already better than me at everything {haha}.", "P: {Haha}, that's adorable.", "O: {Parentpro} sent me a photo of a perfect bowl. Show-off."},
	{"O: I saw a poster for a jazz festival downtown next month.", "P: Ooh, are you going?", "O: Maybe! If I can find someone to go with."},
	{"O: We got a new manager at {workplace} and I can't tell yet if she's nice or scary.", "P: {Haha}, give it a few weeks.", "O: That's the plan. Keeping my head down."},
	{"O: I drove past my old school today and it looks so small now.", "P: Isn't that so weird? Everything shrinks."},
	{"O: I found a really good podcast about history, I've been listening to it everywhere.", "P: Send it my way!", "O: Will do, you'd love it."},
	{"O: My {sibrel} is visiting next weekend, so I need to clean my whole place.", "P: {Haha}, the pre-guest panic clean.", "O: Every single time."},
	{"O: I'm trying to save up this year, so no takeout for a month.", "P: Oof, good luck! What's the goal?", "O: Just a cushion, in case anything happens."},
}
