package budget

// Counter counts the tokens of a text under one encoding.
// Implementations are safe for concurrent use.
type Counter interface {
	// Name is the encoding's name: "o200k_base", "cl100k_base", "estimate".
	Name() string
	// Count returns the number of tokens in text.
	Count(text string) int
}

// Tokenizer is a Counter that can also cut text at a token boundary.
type Tokenizer interface {
	Counter
	// Encode returns the token ids of text (ordinary text: no special tokens).
	Encode(text string) []int
	// Decode returns the text of tokens.
	Decode(tokens []int) string
}
