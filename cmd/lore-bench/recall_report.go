package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"

	"github.com/lorekeep/lore/packet"
)

// recallCell is the mean over the questions of one method, budget and
// category group.
type recallCell struct {
	N        int     `json:"n"`
	Recall   float64 `json:"recall"`
	Tokens   float64 `json:"mean_tokens"`
	Overhead float64 `json:"mean_overhead,omitempty"` // lore only: tokens not spent on record content
	Records  float64 `json:"mean_records"`
	Over     int     `json:"over_budget"` // packets whose own count exceeds the budget
	// AnsRecall is the mean answer recall over the Extractive questions.
	Extractive int     `json:"extractive"`
	AnsRecall  float64 `json:"answer_recall"`
	// The contract counts of the scorer (lore only): packets cut at the
	// budget, and records dropped (unknown ids) or kept without credit.
	Cut       int `json:"cut_at_budget"`
	Unknown   int `json:"unknown_ids"`
	Foreign   int `json:"foreign_text"`
	Citations int `json:"citations"`
	Short     int `json:"short_excerpts"`
	// RoomLeft counts the packets with room for a record they deferred.
	RoomLeft int `json:"room_left"`
	// Empty counts the packets that hold no record (lore only).
	Empty int `json:"empty_packets"`
	// Contradiction flags (lore only): packets that carry one, packets
	// that hold two evidence records or more, and of those the packets
	// where a flag joins two of them.
	Flagged      int `json:"flagged_packets"`
	BothEvidence int `json:"both_evidence"`
	FlagEvidence int `json:"flag_evidence"`
}

// recallReport holds the figures of one `lore-bench recall` run.
type recallReport struct {
	Questions int   `json:"questions"`
	Budgets   []int `json:"budgets"`
	// Cells[method][budget][group]: group is a category ("1".."5") or
	// "all" (every scored question).
	Cells map[string]map[int]map[string]*recallCell `json:"cells"`
	// LatencyMs is the Lore packet's build time per budget: p50 and p99.
	LatencyMs map[int][2]float64 `json:"latency_ms"`
	// CPUMs is the process's CPU time while a packet was built, per
	// budget: p50 and p99 (recallRow.CPUMicros).
	CPUMs map[int][2]float64 `json:"cpu_ms"`
	// NotMonotone counts, per pair of neighbouring budgets, the questions
	// whose packet at the larger budget lacks a record the smaller one
	// includes.
	NotMonotone map[string]int `json:"not_monotone"`
	// ShorterForms counts, per pair of neighbouring budgets, the
	// questions whose packet at the larger budget shows a record of the
	// smaller one in a shorter form (packet.FormOrder).
	ShorterForms map[string]int `json:"shorter_forms"`
	Groups       []string       `json:"groups"`
	// FragmentHits and FragmentMisses count the entry and note fragments
	// whose token count came from the process's cache, and those counted
	// (packet.FragmentStats, over the whole run).
	FragmentHits   int64 `json:"fragment_hits"`
	FragmentMisses int64 `json:"fragment_misses"`
}

func summarizeRecall(rows []recallRow, budgets, cats []int) *recallReport {
	rep := &recallReport{Budgets: budgets, Cells: map[string]map[int]map[string]*recallCell{},
		LatencyMs: map[int][2]float64{}, CPUMs: map[int][2]float64{}, NotMonotone: map[string]int{}, ShorterForms: map[string]int{}}
	rep.FragmentHits, rep.FragmentMisses = packet.FragmentStats()
	for _, c := range cats {
		rep.Groups = append(rep.Groups, strconv.Itoa(c))
	}
	rep.Groups = append(rep.Groups, "all")
	for _, m := range recallMethods {
		rep.Cells[m] = map[int]map[string]*recallCell{}
		for _, b := range budgets {
			rep.Cells[m][b] = map[string]*recallCell{}
			for _, g := range rep.Groups {
				rep.Cells[m][b][g] = &recallCell{}
			}
		}
	}
	lat, cpu := map[int][]float64{}, map[int][]float64{}
	loreIDs := map[string]map[int][]string{}
	loreForms := map[string]map[int]map[string]string{} // question, budget, id: form
	for _, r := range rows {
		for _, g := range []string{strconv.Itoa(r.Category), "all"} {
			c := rep.Cells[r.Method][r.Budget][g]
			c.N++
			c.Recall += r.Recall
			c.Tokens += float64(r.Tokens)
			c.Overhead += float64(r.Overhead)
			c.Records += float64(len(r.IDs))
			if r.Tokens > r.Budget {
				c.Over++
			}
			if r.AnsRecall != nil {
				c.Extractive++
				c.AnsRecall += *r.AnsRecall
			}
			if r.Cut {
				c.Cut++
			}
			c.Unknown += r.Unknown
			c.Foreign += r.Foreign
			c.Citations += r.Citations
			c.Short += r.Short
			if r.RoomLeft {
				c.RoomLeft++
			}
			if r.Method == methodLore && len(r.IDs) == 0 {
				c.Empty++
			}
			if r.Flags > 0 {
				c.Flagged++
			}
			if r.BothEvidence {
				c.BothEvidence++
				if r.FlagEvidence {
					c.FlagEvidence++
				}
			}
		}
		if r.Method == methodLore {
			lat[r.Budget] = append(lat[r.Budget], float64(r.Micros)/1000)
			cpu[r.Budget] = append(cpu[r.Budget], float64(r.CPUMicros)/1000)
			if loreIDs[r.QID] == nil {
				loreIDs[r.QID] = map[int][]string{}
			}
			loreIDs[r.QID][r.Budget] = r.IDs
			if loreForms[r.QID] == nil {
				loreForms[r.QID] = map[int]map[string]string{}
			}
			forms := map[string]string{}
			for i, id := range r.IDs {
				if i < len(r.Forms) {
					forms[id] = r.Forms[i]
				}
			}
			loreForms[r.QID][r.Budget] = forms
		}
	}
	for _, bs := range rep.Cells {
		for _, gs := range bs {
			for _, c := range gs {
				if c.N > 0 {
					n := float64(c.N)
					c.Recall, c.Tokens, c.Overhead, c.Records = c.Recall/n, c.Tokens/n, c.Overhead/n, c.Records/n
				}
				if c.Extractive > 0 {
					c.AnsRecall /= float64(c.Extractive)
				}
			}
		}
	}
	for b, ds := range lat {
		sort.Float64s(ds)
		rep.LatencyMs[b] = [2]float64{quantile(ds, 0.5), quantile(ds, 0.99)}
	}
	for b, ds := range cpu {
		sort.Float64s(ds)
		rep.CPUMs[b] = [2]float64{quantile(ds, 0.5), quantile(ds, 0.99)}
	}
	for i := 1; i < len(budgets); i++ {
		small, large := budgets[i-1], budgets[i]
		key := fmt.Sprintf("%d->%d", small, large)
		rep.NotMonotone[key] = 0
		for _, byBudget := range loreIDs {
			for _, id := range byBudget[small] {
				if !slices.Contains(byBudget[large], id) {
					rep.NotMonotone[key]++
					break
				}
			}
		}
		rep.ShorterForms[key] = 0
		for _, byBudget := range loreForms {
			for id, form := range byBudget[small] {
				if larger, ok := byBudget[large][id]; ok && packet.FormOrder(larger) < packet.FormOrder(form) {
					rep.ShorterForms[key]++
					break
				}
			}
		}
	}
	return rep
}

func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q * float64(len(sorted)-1))
	return sorted[i]
}

func (rep *recallReport) print(w io.Writer) {
	fmt.Fprintf(w, "Evidence recall, %d questions (mean over questions; the scorer's cut and cost model)\n\n", rep.Questions)
	header := func(title, first string) {
		fmt.Fprintf(w, "%s\n\n| %s |", title, first)
		for _, b := range rep.Budgets {
			fmt.Fprintf(w, " %d |", b)
		}
		fmt.Fprint(w, "\n|---|")
		for range rep.Budgets {
			fmt.Fprint(w, "---:|")
		}
		fmt.Fprintln(w)
	}
	table := func(title, group string, val func(*recallCell) string, methods []string) {
		header(title, "method")
		for _, m := range methods {
			fmt.Fprintf(w, "| %s |", m)
			for _, b := range rep.Budgets {
				fmt.Fprintf(w, " %s |", val(rep.Cells[m][b][group]))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
	}
	rec := func(c *recallCell) string { return fmt.Sprintf("%.3f", c.Recall) }
	table("Mean evidence recall, all scored categories", "all", rec, recallMethods)
	ext := rep.Cells[methodLore][rep.Budgets[0]]["all"].Extractive
	table(fmt.Sprintf("Answer recall (%d extractive questions; the gold answer is in the record text kept)", ext), "all",
		func(c *recallCell) string {
			if c.Extractive == 0 {
				return "-"
			}
			return fmt.Sprintf("%.3f", c.AnsRecall)
		}, recallMethods)
	for _, g := range rep.Groups[:len(rep.Groups)-1] {
		n := rep.Cells[methodLore][rep.Budgets[0]][g].N
		table(fmt.Sprintf("Category %s (n=%d)", g, n), g, rec, recallMethods)
	}
	table("Mean tokens per packet (lore: its own count; baselines: the scorer's cost)", "all",
		func(c *recallCell) string { return fmt.Sprintf("%.0f", c.Tokens) }, recallMethods)
	table("Mean records kept", "all", func(c *recallCell) string { return fmt.Sprintf("%.1f", c.Records) }, recallMethods)
	header("Lore packet overhead (tokens not spent on record content), mean and share of the budget", "method")
	fmt.Fprint(w, "| lore |")
	for _, b := range rep.Budgets {
		c := rep.Cells[methodLore][b]["all"]
		fmt.Fprintf(w, " %.0f (%.1f%%) |", c.Overhead, 100*c.Overhead/float64(b))
	}
	// The scorer prices each record at its title and text plus
	// scorerOverhead (a record's own heading); what a packet spends past
	// that is its frame and its notes.
	fmt.Fprint(w, "\n| frame and notes (past the scorer's 4 a record) |")
	for _, b := range rep.Budgets {
		c := rep.Cells[methodLore][b]["all"]
		f := c.Overhead - scorerOverhead*c.Records
		fmt.Fprintf(w, " %.0f (%.1f%%) |", f, 100*f/float64(b))
	}
	fmt.Fprint(w, "\n| over budget |")
	for _, b := range rep.Budgets {
		fmt.Fprintf(w, " %d |", rep.Cells[methodLore][b]["all"].Over)
	}
	fmt.Fprint(w, "\n| build p50 / p99 ms |")
	for _, b := range rep.Budgets {
		l := rep.LatencyMs[b]
		fmt.Fprintf(w, " %.2f / %.2f |", l[0], l[1])
	}
	fmt.Fprint(w, "\n| build CPU p50 / p99 ms (the process's, all cores) |")
	for _, b := range rep.Budgets {
		l := rep.CPUMs[b]
		fmt.Fprintf(w, " %.2f / %.2f |", l[0], l[1])
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)
	header("Lore contract checks (the scorer's reading of the text shown; packets, or kept records that earn no credit)", "check")
	for _, k := range []struct {
		name string
		val  func(*recallCell) int
	}{
		{"packets that hold no record", func(c *recallCell) int { return c.Empty }},
		{"packets cut at the budget", func(c *recallCell) int { return c.Cut }},
		{"unknown ids dropped", func(c *recallCell) int { return c.Unknown }},
		{"foreign text", func(c *recallCell) int { return c.Foreign }},
		{"citations: no body text", func(c *recallCell) int { return c.Citations }},
		{"short excerpts: too little of the body", func(c *recallCell) int { return c.Short }},
		{"room left for a record deferred whole (its note's price)", func(c *recallCell) int { return c.RoomLeft }},
	} {
		fmt.Fprintf(w, "| %s |", k.name)
		for _, b := range rep.Budgets {
			fmt.Fprintf(w, " %d |", k.val(rep.Cells[methodLore][b]["all"]))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	header("Lore contradiction flags, per category: packets that carry one; packets that hold two evidence records or more, and of those where a flag joins two", "category")
	for _, g := range rep.Groups {
		fmt.Fprintf(w, "| %s |", g)
		for _, b := range rep.Budgets {
			c := rep.Cells[methodLore][b][g]
			fmt.Fprintf(w, " %d of %d; %d of %d |", c.Flagged, c.N, c.FlagEvidence, c.BothEvidence)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, "\nQuestions whose packet at the larger budget lacks a record of the smaller one:")
	for i := 1; i < len(rep.Budgets); i++ {
		key := fmt.Sprintf("%d->%d", rep.Budgets[i-1], rep.Budgets[i])
		fmt.Fprintf(w, " %s: %d;", key, rep.NotMonotone[key])
	}
	fmt.Fprint(w, "\nQuestions whose packet at the larger budget shows a record of the smaller one in a shorter form:")
	for i := 1; i < len(rep.Budgets); i++ {
		key := fmt.Sprintf("%d->%d", rep.Budgets[i-1], rep.Budgets[i])
		fmt.Fprintf(w, " %s: %d;", key, rep.ShorterForms[key])
	}
	if all := rep.FragmentHits + rep.FragmentMisses; all > 0 {
		fmt.Fprintf(w, "\n\nFragment counts from the process's cache: %d of %d (%.1f%%)", rep.FragmentHits, all, 100*float64(rep.FragmentHits)/float64(all))
	}
	fmt.Fprintln(w)
}
