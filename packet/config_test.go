package packet

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/lorekeep/lore/budget"
)

func TestConfigJSONRoundTrip(t *testing.T) {
	d := DefaultConfig()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var back Config
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, d) {
		t.Errorf("default config does not survive JSON:\n%s", b)
	}
	if err := back.Validate(); err != nil {
		t.Errorf("default config invalid: %v", err)
	}
	// The zero value means defaults.
	if err := (Config{}).Validate(); err != nil {
		t.Errorf("zero config invalid: %v", err)
	}
	if got := (Config{}).withDefaults(); !reflect.DeepEqual(got, d) {
		t.Errorf("zero config with defaults = %+v; want DefaultConfig()", got)
	}
	// A profile from lore.json replaces the built-in one of its name and
	// keeps the others.
	var c Config
	if err := json.Unmarshal([]byte(`{"profiles":{"novel":{"rules":[{"rank":1,"match":"focus"}],"protected":[1]}}}`), &c); err != nil {
		t.Fatal(err)
	}
	w := c.withDefaults()
	if len(w.Profiles["novel"].Rules) != 1 || len(w.Profiles["agent"].Rules) == 0 {
		t.Errorf("profiles after merge: %+v", w.Profiles)
	}
}

func TestConfigValidate(t *testing.T) {
	rule := func(r Rule) map[string]Profile { return map[string]Profile{"p": {Rules: []Rule{r}}} }
	tests := []struct {
		name  string
		cfg   Config
		quote string
	}{
		{"default profile", Config{DefaultProfile: "poem"}, `"poem"`},
		{"no rules", Config{Profiles: map[string]Profile{"p": {}}}, `"p" has no rules`},
		{"rank", Config{Profiles: rule(Rule{Rank: 0, Match: "focus"})}, "rank 0"},
		{"match", Config{Profiles: rule(Rule{Rank: 1, Match: "friends"})}, `"friends"`},
		{"when", Config{Profiles: rule(Rule{Rank: 1, Match: "any", When: "power|sometimes"})}, `"power|sometimes"`},
		{"pull", Config{Profiles: rule(Rule{Rank: 1, Match: "any", Pull: true})}, "pull needs kinds"},
		{"protected", Config{Profiles: map[string]Profile{"p": {Rules: []Rule{{Rank: 1, Match: "focus"}}, Protected: []int{-2}}}}, "-2"},
		{"overflow", Config{Overflow: map[string]budget.Action{"scene": "shrink"}}, `"shrink"`},
		{"scope", Config{Scopes: map[string]int{"act": -1}}, `"act"`},
		{"hit limit", Config{HitLimit: -3}, "-3"},
		{"context share", Config{ContextShare: -2}, "context_share -2: want 1 to 100"},
		{"window share", Config{WindowShare: 101}, "window_share 101"},
		{"after next share", Config{AfterNextShare: -2}, "after_next_share -2: want 1 to 100"},
		{"overflow message", Config{Overflow: map[string]budget.Action{"scene": "explode"}}, `overflow action "explode" for kind "scene": want drop, truncate or fail`},
		{"scope named like a budget", Config{Scopes: map[string]int{"8k": 5000}}, `scope name "8k" reads as a budget number`},
		{"scope named a number", Config{Scopes: map[string]int{"100": 5000}}, `"100"`},
		{"scope named a fraction", Config{Scopes: map[string]int{"1.5m": 5000}}, `"1.5m"`},
		{"scope named blank", Config{Scopes: map[string]int{" ": 5000}}, `" "`},
		{"scope over the maximum", Config{Scopes: map[string]int{"saga": budget.MaxBudget + 1}}, `"saga"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("Validate: %v; want ErrInvalidRequest", err)
			}
			if !errors.Is(err, ErrInvalidConfig) || !strings.HasPrefix(err.Error(), "invalid packet configuration: ") {
				t.Errorf("Validate: %v; want ErrInvalidConfig, said as %q", err, "invalid packet configuration: ...")
			}
			if !strings.Contains(err.Error(), tt.quote) {
				t.Errorf("error %q does not quote %s", err, tt.quote)
			}
		})
	}
}

// TestConfigScopeNames keeps word-named scopes valid, overrides of the
// built-in ones included.
func TestConfigScopeNames(t *testing.T) {
	for _, name := range []string{"act", "scene", "Chapter", "novel", "k", "m", "book-2"} {
		if err := (Config{Scopes: map[string]int{name: 9000}}).Validate(); err != nil {
			t.Errorf("scope %q: %v; want valid", name, err)
		}
	}
}
