package util

// Quote says "hi" & <bye>.
func Quote() string { return `]]>` }
