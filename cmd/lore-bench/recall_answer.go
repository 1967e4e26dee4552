package main

import (
	"strconv"
	"strings"
)

// Answer recall, as the shared scorer defines it: a question is
// extractive when its gold answer occurs word for word in the text of
// one of its evidence records, and its packet holds the answer when the
// body text it keeps of some record does. It guards against excerpts
// that keep a record's id and lose its point.

// normAnswer lower-cases s and keeps its words: every run of characters
// other than letters and digits becomes one space, none at the ends.
func normAnswer(s string) string {
	var b strings.Builder
	gap := false
	for _, r := range strings.ToLower(s) {
		if !isWordRune(r) {
			gap = true
			continue
		}
		if gap && b.Len() > 0 {
			b.WriteByte(' ')
		}
		gap = false
		b.WriteRune(r)
	}
	return b.String()
}

// hasWords reports whether the normalised answer a occurs in the
// normalised text t at word boundaries.
func hasWords(t, a string) bool {
	return a != "" && strings.Contains(" "+t+" ", " "+a+" ")
}

// answerString is the gold answer as text: a string as it is, a number
// in its shortest form, anything else (null, a list) none.
func answerString(a any) string {
	switch v := a.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

// markExtractive normalises each question's answer and marks it
// extractive when an evidence record of its namespace holds it.
func markExtractive(nss map[string]*evalNS, queries []evalQuery) {
	for i := range queries {
		q := &queries[i]
		q.ans, q.extractive = normAnswer(answerString(q.Answer)), false
		ns := nss[q.Namespace]
		if ns == nil || q.ans == "" {
			continue
		}
		for _, id := range q.Evidence {
			if ns.byID[id] != nil && hasWords(ns.normOf(id).answer, q.ans) {
				q.extractive = true
				break
			}
		}
	}
}

// answerInWhole reports whether one of the records, each shown whole,
// holds q's answer (the baselines' packets).
func (ns *evalNS) answerInWhole(ids []string, q evalQuery) bool {
	if !q.extractive {
		return false
	}
	for _, id := range ids {
		if hasWords(ns.normOf(id).answer, q.ans) {
			return true
		}
	}
	return false
}

// answerRecall is a row's answer recall: nil for a question that is not
// extractive, else 1 when the packet holds the answer.
func answerRecall(q evalQuery, hit bool) *float64 {
	if !q.extractive {
		return nil
	}
	a := 0.0
	if hit {
		a = 1
	}
	return &a
}
