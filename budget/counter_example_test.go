package budget_test

import (
	"fmt"

	"github.com/lorekeep/lore/budget"
)

func ExampleNewCounter() {
	c, err := budget.NewCounter("") // o200k_base
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Name(), c.Count("hello world"), budget.Exact(c))
	// Special-token text is ordinary text: 7 tokens, not 1.
	fmt.Println(c.Count("<|endoftext|>"))

	est, _ := budget.NewCounter("estimate")
	fmt.Println(est.Name(), est.Count("hello world"), budget.Exact(est))

	_, err = budget.NewCounter("gpt-4o")
	fmt.Println(err)
	// Output:
	// o200k_base 2 true
	// 7
	// estimate 3 false
	// unknown encoding "gpt-4o": want one of cl100k_base, estimate, o200k_base (or empty for o200k_base)
}

func ExampleTokenizer() {
	c, _ := budget.NewCounter("cl100k_base")
	tok := c.(budget.Tokenizer)
	ids := tok.Encode("Lore keeps context.")
	fmt.Println(len(ids), tok.Decode(ids[:2]))
	// Output:
	// 5 Lore
}
