package store_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/storetest"
)

func TestPutGetRoundTrip(t *testing.T) {
	s := newStore(t)
	in := store.Record{
		NS: "novel/one", ID: "mara", Kind: "character", Title: "Mara Voss",
		Body: "Mara keeps the lighthouse.\nShe lies about the fire.", Summary: "Keeper; lies about the fire.",
		Tags: []string{"pov", "keeper", "pov"}, Meta: map[string]string{"pov": "yes", "chapter": "3"},
		Order: 7, Pinned: true,
	}
	res := mustPut(t, s, in)
	if res.Status != store.StatusAdded || res.Version != 1 || res.Seq != 1 || res.NS != in.NS || res.ID != in.ID {
		t.Fatalf("Put = %+v; want added, version 1, seq 1", res)
	}
	got, err := s.Get("novel/one", "mara")
	if err != nil {
		t.Fatal(err)
	}
	c := counter(t)
	want := in
	want.Tags = []string{"keeper", "pov"} // sorted, deduplicated
	want.Created = time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC)
	want.Updated = want.Created
	want.Version = 1
	want.SHA256 = got.SHA256
	want.BodyBytes = len(in.Body)
	want.Tokens = map[string]store.TokenCount{"o200k_base": {Title: c.Count(in.Title), Body: c.Count(in.Body), Summary: c.Count(in.Summary)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Get:\n got %+v\nwant %+v", got, want)
	}
	if len(got.SHA256) != 64 {
		t.Errorf("SHA256 = %q; want 64 hex digits", got.SHA256)
	}
	if want.Tokens["o200k_base"].Body < 5 {
		t.Errorf("body token count %d looks wrong for %q", want.Tokens["o200k_base"].Body, in.Body)
	}

	head, err := s.Head("novel/one", "mara")
	if err != nil {
		t.Fatal(err)
	}
	wantHead := want
	wantHead.Body = ""
	if !reflect.DeepEqual(head, wantHead) {
		t.Errorf("Head:\n got %+v\nwant %+v", head, wantHead)
	}
}

func TestPutUnchangedAndVersions(t *testing.T) {
	s := newStore(t)
	r := store.Record{NS: "a", ID: "x", Body: "one"}
	mustPut(t, s, r)
	seq := lastSeq(t, s)
	first, _ := s.Get("a", "x")

	// Same content, in another tag order and with store-maintained fields
	// set by the caller: nothing changes.
	again := r
	again.Version, again.SHA256 = 99, "bogus"
	res := mustPut(t, s, again)
	if res.Status != store.StatusUnchanged || res.Version != 1 || res.Seq != 0 {
		t.Fatalf("identical Put = %+v; want unchanged, version 1, seq 0", res)
	}
	if got := lastSeq(t, s); got != seq {
		t.Errorf("identical Put moved the change log from %d to %d", seq, got)
	}
	if now, _ := s.Get("a", "x"); !reflect.DeepEqual(now, first) {
		t.Errorf("identical Put changed the record:\n got %+v\nwant %+v", now, first)
	}

	r.Body = "two"
	res = mustPut(t, s, r)
	if res.Status != store.StatusUpdated || res.Version != 2 || res.Seq != seq+1 {
		t.Fatalf("changed Put = %+v; want updated, version 2, seq %d", res, seq+1)
	}
	got, _ := s.Get("a", "x")
	if !got.Created.Equal(first.Created) || !got.Updated.After(first.Updated) {
		t.Errorf("Created %v Updated %v; want Created kept (%v), Updated later", got.Created, got.Updated, first.Created)
	}
	v1, err := s.GetVersion("a", "x", 1)
	if err != nil || v1.Body != "one" || v1.Version != 1 {
		t.Errorf("GetVersion(1) = %q v%d, %v; want \"one\" v1", v1.Body, v1.Version, err)
	}
	v2, err := s.GetVersion("a", "x", 2)
	if err != nil || v2.Body != "two" {
		t.Errorf("GetVersion(2) = %q, %v; want \"two\"", v2.Body, err)
	}
	_, err = s.GetVersion("a", "x", 3)
	wantErr(t, err, store.ErrNotFound, "version 3", `"x"`)
	_, err = s.GetVersion("a", "x", 0)
	wantErr(t, err, store.ErrInvalid, "version 0")
}

func TestHistoryCap(t *testing.T) {
	for _, tc := range []struct {
		cap, puts, wantKept int
	}{
		{cap: 0, puts: 25, wantKept: 20}, // default 20
		{cap: 3, puts: 10, wantKept: 3},
		{cap: 5, puts: 4, wantKept: 3},
		{cap: -1, puts: 4, wantKept: 0},
	} {
		t.Run(fmt.Sprintf("cap%d", tc.cap), func(t *testing.T) {
			s := storetest.Open(t, &store.Options{HistoryCap: tc.cap, Now: clock()})
			for i := 1; i <= tc.puts; i++ {
				mustPut(t, s, store.Record{NS: "h", ID: "r", Body: fmt.Sprintf("body %d", i)})
			}
			mustPut(t, s, store.Record{NS: "h", ID: "other", Body: "x"})
			hist, err := s.History("h", "r")
			if err != nil {
				t.Fatal(err)
			}
			if len(hist) != tc.wantKept+1 {
				t.Fatalf("History has %d versions; want %d kept plus the current", len(hist), tc.wantKept)
			}
			for i, r := range hist {
				v := tc.puts - tc.wantKept + i
				if r.Version != v || r.Body != fmt.Sprintf("body %d", v) {
					t.Errorf("History[%d] = v%d %q; want v%d %q", i, r.Version, r.Body, v, fmt.Sprintf("body %d", v))
				}
			}
			st, err := s.Stats("h")
			if err != nil {
				t.Fatal(err)
			}
			if st.Versions != tc.wantKept {
				t.Errorf("Stats.Versions = %d; want %d", st.Versions, tc.wantKept)
			}
			if tc.puts > tc.wantKept+1 {
				_, err = s.GetVersion("h", "r", 1)
				wantErr(t, err, store.ErrNotFound, "version 1")
			}
		})
	}
}

func TestPutManyAtomic(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, store.Record{NS: "a", ID: "keep", Body: "before"})
	seq := lastSeq(t, s)
	recs := []store.Record{
		{NS: "a", ID: "keep", Body: "after"},
		{NS: "a", ID: "new", Body: "fine"},
		{NS: "A", ID: "upper"},
		{NS: "a", ID: ""},
		{NS: "a", ID: "bad\x07bell"},
		{NS: "a", ID: "badbody", Body: "ok \xff\xfe not"},
	}
	links := []store.Link{
		{NS: "a", From: "keep", Rel: "knows", To: "new"},
		{NS: "a", From: "keep", Rel: "knows", To: "new", ToNS: "b"},
	}
	_, err := s.PutMany(recs, links)
	wantErr(t, err, store.ErrInvalid,
		"5 of 8 inputs are bad", `record 2 (ns "A", id "upper")`, `namespace "A"`, `record 3 (ns "a", id "")`, `id "" is empty`,
		`record 4 (ns "a", id "bad\abell")`, "U+0007", `record 5 (ns "a", id "badbody")`, "0xff", `link 1 (ns "a": "keep" -knows-> "new")`, `namespace "b"`)
	if strings.Contains(err.Error(), "record 0") || strings.Contains(err.Error(), "record 1") || strings.Contains(err.Error(), "link 0") {
		t.Errorf("error %q blames a good input", err)
	}
	var errs interface{ Unwrap() []error }
	if !errors.As(err, &errs) || len(errs.Unwrap()) != 5 {
		t.Errorf("error unwraps to %v; want the 5 bad inputs", err)
	}
	if got := lastSeq(t, s); got != seq {
		t.Errorf("failed PutMany moved the change log from %d to %d", seq, got)
	}
	if r, _ := s.Get("a", "keep"); r.Body != "before" || r.Version != 1 {
		t.Errorf("failed PutMany changed a/keep to %q v%d", r.Body, r.Version)
	}
	if _, err := s.Get("a", "new"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("failed PutMany wrote a/new: Get err = %v", err)
	}
	if l, _ := s.Links("a", "keep", store.Both); len(l) != 0 {
		t.Errorf("failed PutMany wrote links %v", l)
	}

	// The good part alone goes in, in one transaction, in order.
	res, err := s.PutMany(recs[:2], links[:1])
	if err != nil {
		t.Fatal(err)
	}
	want := []store.PutResult{
		{NS: "a", ID: "keep", Status: store.StatusUpdated, Version: 2, Seq: seq + 1},
		{NS: "a", ID: "new", Status: store.StatusAdded, Version: 1, Seq: seq + 2},
	}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("PutMany = %+v; want %+v", res, want)
	}
	if got := lastSeq(t, s); got != seq+3 {
		t.Errorf("LastSeq = %d; want %d (two puts and a link)", got, seq+3)
	}
	// The same id twice in one batch: put twice, in order.
	res, err = s.PutMany([]store.Record{{NS: "a", ID: "twice", Body: "1"}, {NS: "a", ID: "twice", Body: "2"}, {NS: "a", ID: "twice", Body: "2"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Status != store.StatusAdded || res[1].Status != store.StatusUpdated || res[2].Status != store.StatusUnchanged || res[2].Version != 2 {
		t.Errorf("PutMany with a repeated id = %+v; want added, updated, unchanged v2", res)
	}
}

func TestBadInputNothingWritten(t *testing.T) {
	long := strings.Repeat("x", 257)
	for _, tc := range []struct {
		name      string
		rec       store.Record
		fragments []string
	}{
		{"empty namespace", store.Record{ID: "x"}, []string{`namespace ""`, "is empty"}},
		{"upper namespace", store.Record{NS: "Novel", ID: "x"}, []string{`namespace "Novel"`, `'N'`}},
		{"dotdot namespace", store.Record{NS: "a/../b", ID: "x"}, []string{`namespace "a/../b"`, `".."`}},
		{"empty segment", store.Record{NS: "a//b", ID: "x"}, []string{`namespace "a//b"`, "empty segment"}},
		{"leading dash", store.Record{NS: "-a", ID: "x"}, []string{`namespace "-a"`, "starting with"}},
		{"long namespace", store.Record{NS: strings.Repeat("a", 129), ID: "x"}, []string{"129 bytes", "at most 128"}},
		{"empty id", store.Record{NS: "a"}, []string{`id ""`, "is empty", "1-256 bytes"}},
		{"long id", store.Record{NS: "a", ID: long}, []string{"257 bytes"}},
		{"control id", store.Record{NS: "a", ID: "line\nbreak"}, []string{`id "line\nbreak"`, "U+000A"}},
		{"nul id", store.Record{NS: "a", ID: "a\x00b"}, []string{`id "a\x00b"`, "U+0000"}},
		{"invalid utf-8 id", store.Record{NS: "a", ID: "a\xffb"}, []string{`id "a\xffb"`, "not valid UTF-8"}},
		{"spaced id", store.Record{NS: "a", ID: " x"}, []string{`id " x"`, "leading or trailing space"}},
		{"invalid utf-8 body", store.Record{NS: "a", ID: "x", Body: "caf\xe9"}, []string{"body is not valid UTF-8", "0xe9", "offset 3", "Binary"}},
		{"invalid utf-8 title", store.Record{NS: "a", ID: "x", Title: "t\xc3"}, []string{"title is not valid UTF-8"}},
		{"binary with body", store.Record{NS: "a", ID: "x", Binary: true, Body: "text"}, []string{"binary record has no body"}},
		{"control tag", store.Record{NS: "a", ID: "x", Tags: []string{"a\tb"}}, []string{`tag "a\tb"`}},
		{"empty meta key", store.Record{NS: "a", ID: "x", Meta: map[string]string{"": "v"}}, []string{"meta has an empty key"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			_, err := s.Put(tc.rec)
			wantErr(t, err, store.ErrInvalid, tc.fragments...)
			if st, _ := s.Stats(""); st.Records != 0 || st.LastSeq != 0 {
				t.Errorf("after a refused put: %d records, seq %d; want nothing written", st.Records, st.LastSeq)
			}
		})
	}
}

func TestBigBodies(t *testing.T) {
	t.Run("50MB accepted", func(t *testing.T) {
		s := storetest.Open(t, nil) // no counters: tokenizing 50 MB is budget's job
		body := strings.Repeat("The lighthouse keeper counts the ships. ", 50_000_000/40)
		res, err := s.Put(store.Record{NS: "big", ID: "novel", Body: body})
		if err != nil || res.Status != store.StatusAdded {
			t.Fatalf("Put 50 MB body = %+v, %v; want added", res, err)
		}
		h, err := s.Head("big", "novel")
		if err != nil || h.BodyBytes != len(body) {
			t.Fatalf("Head = BodyBytes %d, %v; want %d", h.BodyBytes, err, len(body))
		}
		got, err := s.Bodies("big", []string{"novel"})
		if err != nil || got["novel"] != body {
			t.Fatalf("Bodies: %d bytes, %v; want the %d bytes put", len(got["novel"]), err, len(body))
		}
	})
	t.Run("over the limit refused", func(t *testing.T) {
		s := storetest.Open(t, &store.Options{MaxBodyBytes: 1 << 20})
		_, err := s.Put(store.Record{NS: "big", ID: "x", Body: strings.Repeat("a", 1<<20+1)})
		wantErr(t, err, store.ErrInvalid, "record big/x", "1048577 bytes", "limit of 1048576 bytes", "MaxBodyBytes")
		if _, err := s.Put(store.Record{NS: "big", ID: "x", Body: strings.Repeat("a", 1<<20)}); err != nil {
			t.Errorf("a body of exactly the limit: %v", err)
		}
	})
}

func TestBinaryRecord(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, store.Record{NS: "files", ID: "img/logo.png", Kind: "file", Binary: true, Title: "logo"})
	r, err := s.Get("files", "img/logo.png")
	if err != nil || !r.Binary || r.Body != "" || r.BodyBytes != 0 {
		t.Errorf("binary record = %+v, %v; want Binary, no body", r, err)
	}
}

func TestSetTokens(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, store.Record{NS: "a", ID: "x", Body: "hello world"})
	seq := lastSeq(t, s)
	if err := s.SetTokens("a", "x", "cl100k_base", store.TokenCount{Title: 0, Body: 2}); err != nil {
		t.Fatal(err)
	}
	h, _ := s.Head("a", "x")
	if h.Tokens["cl100k_base"] != (store.TokenCount{Body: 2}) || h.Version != 1 {
		t.Errorf("after SetTokens: tokens %v version %d; want cl100k_base body 2, version 1", h.Tokens, h.Version)
	}
	if _, ok := h.Tokens["o200k_base"]; !ok {
		t.Errorf("SetTokens dropped the other counter's cache: %v", h.Tokens)
	}
	if got := lastSeq(t, s); got != seq {
		t.Errorf("SetTokens wrote a change-log entry (seq %d -> %d)", seq, got)
	}
	wantErr(t, s.SetTokens("a", "missing", "c", store.TokenCount{}), store.ErrNotFound, `"missing"`)
	wantErr(t, s.SetTokens("a", "x", "c", store.TokenCount{Body: -1}), store.ErrInvalid, "negative")
}

func TestPutManyManyBad(t *testing.T) {
	s := newStore(t)
	recs := make([]store.Record, 250)
	for i := range recs {
		recs[i] = store.Record{NS: "a", ID: fmt.Sprintf("bad\x01%d", i)}
	}
	_, err := s.PutMany(recs, nil)
	wantErr(t, err, store.ErrInvalid, "250 of 250 inputs are bad", "record 99 ", "... and 150 more")
	if strings.Contains(err.Error(), "record 100 ") {
		t.Errorf("message lists more than 100 bad inputs")
	}
}
