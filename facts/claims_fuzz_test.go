package facts

import "testing"

// FuzzClaims: any text, read as a claim or as an affirmation of one,
// never panics, and a claim read always has a subject and its verb.
func FuzzClaims(f *testing.F) {
	for _, s := range []string{
		"I've never met Raymond at any tech event.",
		"Mira had never seen the sea, or the hills.",
		"We never — or nor, never “quoted” I’ve never ’",
		"never", "I never", "Captain Voss has never lost a ship; he said so?",
	} {
		f.Add(s, "I met Raymond at the tech event.")
	}
	f.Fuzz(func(t *testing.T, claimText, other string) {
		for _, c := range NegatedClaims(claimText) {
			if c.Subject == "" || len(c.Terms()) < 2 {
				t.Fatalf("claim %+v from %q: no subject or too few terms", c, claimText)
			}
			Affirmation(other, c)
			Affirmation(claimText, c)
			c.MayAffirm(other)
		}
	})
}
