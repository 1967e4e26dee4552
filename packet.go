package lore

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/packet"
)

// BudgetSpec is a budget as a user gives it: a number or scope name, an
// optional model (its window and encoding), and room to reserve.
type BudgetSpec struct {
	// Budget is "8000", "8k", "1.5k", a scope name ("scene"), or "".
	Budget string
	// Scope is a scope name. Alone it sets the budget; with Budget it
	// only sets the horizon of obligations.
	Scope string
	// Model names a model from budget.Models(); it sets the encoding and
	// caps the budget at its window minus Reserve.
	Model string
	// Reserve is room left for the question, system prompt and answer.
	Reserve int
}

// ResolvedBudget is a budget turned into tokens and an encoding.
type ResolvedBudget struct {
	Tokens   int
	Encoding string
	// Estimate is set when the model's tokenizer is not one Lore has: the
	// count is an estimate and the budget keeps a margin.
	Estimate bool
	// DefaultScope names the scope used because none was given ("" when
	// the spec gave a budget, a scope or a model).
	DefaultScope string
}

// scopeTokens is the budget of a scope name: lore.json's scopes first,
// then the built-in ones. A name that is neither (a number, a typo) is an
// error that lists the names there are.
func scopeTokens(name string, scopes map[string]int) (int, error) {
	known := maps.Clone(budget.DefaultScopes())
	for k := range scopes {
		known[strings.ToLower(k)] = scopes[k]
	}
	if _, ok := known[strings.ToLower(strings.TrimSpace(name))]; !ok {
		return 0, badvalue.Errorf(name, "scope %q is not a scope name: want one of %s, or a token count (8000, 8k): %w",
			name, strings.Join(slices.Sorted(maps.Keys(known)), ", "), budget.ErrInvalid)
	}
	n, err := budget.ParseBudget(name, scopes)
	if err != nil {
		return 0, fmt.Errorf("scope: %w", err)
	}
	return n, nil
}

// DefaultScope is the scope of a packet given no budget, scope or model
// when lore.json names none.
const DefaultScope = "scene"

// ResolveBudget turns a BudgetSpec into a token limit using the store's
// scopes (lore.json) and the model table. Errors quote the bad value. A
// budget and a scope may be given together: the budget sets the tokens,
// the scope only the horizon of obligations. With neither and no model,
// the scope is lore.json's "scope", else DefaultScope, and the result's
// DefaultScope names it so the caller can say so.
func (l *Lore) ResolveBudget(spec BudgetSpec) (ResolvedBudget, error) {
	out := ResolvedBudget{Encoding: l.counter.Name()}
	scopes := l.cfg.Packet.Scopes
	given := budget.NoBudget
	if spec.Budget == "" && spec.Scope == "" && spec.Model == "" {
		spec.Scope = cmp.Or(l.cfg.Scope, DefaultScope)
		out.DefaultScope = spec.Scope
	}
	if spec.Scope != "" {
		n, err := scopeTokens(spec.Scope, scopes)
		if err != nil {
			return out, err
		}
		given = n
	}
	if spec.Budget != "" {
		n, err := budget.ParseBudget(spec.Budget, scopes)
		if err != nil {
			return out, err
		}
		given = n
	}
	if spec.Model == "" {
		if given == budget.NoBudget {
			return out, fmt.Errorf("no budget: the request names no budget, scope or model: %w", budget.ErrInvalid)
		}
		if spec.Reserve < 0 {
			return out, fmt.Errorf("reserve %d is negative: %w", spec.Reserve, budget.ErrInvalid)
		}
		out.Tokens = max(0, given-spec.Reserve)
		return out, nil
	}
	m, ok := budget.LookupModel(spec.Model)
	if !ok {
		var names []string
		for _, m := range budget.Models() {
			names = append(names, m.Name)
		}
		return out, badvalue.Errorf(spec.Model, "model %q is not in the table; known: %s: %w", spec.Model, strings.Join(names, ", "), budget.ErrInvalid)
	}
	n, err := budget.Limit(given, m, spec.Reserve)
	if err != nil {
		return out, err
	}
	out.Tokens, out.Encoding, out.Estimate = n, m.Encoding, !m.Exact
	return out, nil
}

// Packet builds a Context Packet from this store: candidates, ranks, the
// deferral ladder, rendering. The request's Config defaults to lore.json's
// packet section, its counter to the store's encoding (whose counts are
// cached at write time). An error wrapping packet.ErrCannotFit means the
// budget cannot hold the protected content.
func (l *Lore) Packet(ctx context.Context, req packet.Request) (*packet.Packet, error) {
	req, srch, err := l.packetInputs(req)
	if err != nil {
		return nil, err
	}
	return packet.Build(ctx, l.source(), srch, req)
}

// Why builds the packet of req and says where record id stands in it:
// in (its form, rank and rule), or what kept it out and the request that
// brings it in (packet.Why). The budgets and commands it gives were
// built and checked.
func (l *Lore) Why(ctx context.Context, req packet.Request, id string) (*packet.Verdict, error) {
	req, srch, err := l.packetInputs(req)
	if err != nil {
		return nil, err
	}
	return packet.Why(ctx, l.source(), srch, req, id)
}

// WhyUpTo is Why trying budgets up to ceiling only (packet.WhyUpTo).
func (l *Lore) WhyUpTo(ctx context.Context, req packet.Request, id string, ceiling int) (*packet.Verdict, error) {
	req, srch, err := l.packetInputs(req)
	if err != nil {
		return nil, err
	}
	return packet.WhyUpTo(ctx, l.source(), srch, req, id, ceiling)
}

// packetInputs fills in a packet request's configuration and counter,
// catches the index up, and returns the searcher a build reads.
func (l *Lore) packetInputs(req packet.Request) (packet.Request, packet.Searcher, error) {
	if req.Config == nil {
		cfg := l.cfg.Packet
		req.Config = &cfg
	}
	if req.Counter == nil {
		if req.Encoding == "" || req.Encoding == l.counter.Name() {
			req.Counter = l.counter
		} else {
			c, err := budget.NewCounter(req.Encoding)
			if err != nil {
				return req, nil, err
			}
			req.Counter = c
		}
	}
	if err := l.catchUpShared(); err != nil {
		return req, nil, err
	}
	var words packet.Searcher = noSearch{}
	if ix := l.searcher(); ix != nil {
		words = ix
	} else if req.Query != "" {
		return req, nil, fmt.Errorf("packet: the index %s is missing or unreadable: %w", filepath.Join(l.dir, IndexDir), ErrNoIndex)
	}
	l.sizeSharedCaches()
	if len(req.QueryVector) == 0 {
		return req, words, nil // byte for byte as before vectors
	}
	return req, l.fusedSearcher(words), nil
}

// sizeSharedCaches lets the process's caches that grow with a store's
// size (packet.SizeFragmentCache) see this one's: its index's count of
// records, cheap to read (the sum of the segments' counts).
func (l *Lore) sizeSharedCaches() {
	l.mu.Lock()
	ix := l.ix
	l.mu.Unlock()
	if ix == nil {
		return
	}
	if n, err := ix.Count(); err == nil {
		packet.SizeFragmentCache(n)
	}
}
