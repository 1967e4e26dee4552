package store

// SetUpgradeBatchHook makes fn run in every try of an upgrade batch of
// heads, before it commits, until the returned func is called.
func SetUpgradeBatchHook(fn func(keyed [][]byte)) (reset func()) {
	testHookUpgradeBatch = fn
	return func() { testHookUpgradeBatch = nil }
}
