package budget_test

import (
	"fmt"

	"github.com/lorekeep/lore/budget"
)

func ExampleParseBudget() {
	for _, s := range []string{"8k", "1.5k", "120_000", "chapter", "epic", "-5"} {
		n, err := budget.ParseBudget(s, map[string]int{"epic": 250_000})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(s, "=", n)
	}
	// Output:
	// 8k = 8000
	// 1.5k = 1500
	// 120_000 = 120000
	// chapter = 20000
	// epic = 250000
	// budget "-5" is negative: want a whole number of tokens up to 2147483647 (8000, 120_000), a number with a k or m suffix (8k, 1.5k, 1m), or a scope (arc, chapter, epic, novel, scene)
}

func ExampleLimit() {
	m, _ := budget.LookupModel("gpt-4o-2024-08-06")
	n, _ := budget.Limit(budget.NoBudget, m, 8_000)
	fmt.Println(m.Name, m.Encoding, n)
	c, _ := budget.LookupModel("claude-sonnet-4-20250514")
	n, _ = budget.Limit(20_000, c, 4_000)
	fmt.Println(c.Name, c.Encoding, n, "(estimate: 10% kept back)")
	// Output:
	// gpt-4o o200k_base 120000
	// claude-sonnet-4 estimate 18000 (estimate: 10% kept back)
}
