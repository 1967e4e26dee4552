//go:build fts5

package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/lorekeep/lore/store"
	_ "github.com/mattn/go-sqlite3" // SQLite with FTS5 (the fts5 build tag), through cgo
)

// The SQLite FTS5 baseline: what most embedded agent memories keep their
// text in. Built only with `-tags fts5` (cgo and a C compiler: the
// driver is mattn/go-sqlite3, SQLite's own C code, the engine those
// memories run), so that neither the lore binary nor lore-bench's
// default build links any C.

const fts5Built = true

// openFTS5 opens the baseline's database: WAL, full sync at each commit
// (an acknowledged write is durable, as Lore's are).
func openFTS5(dir string, readOnly bool) (*sql.DB, error) {
	path := fts5File(dir)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	dsn := "file:" + path + "?_journal_mode=WAL&_synchronous=FULL"
	if readOnly {
		dsn += "&mode=ro"
	}
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// ingestFTS5 stores the same records in an FTS5 table (porter stemming
// over unicode61, as the memories do), one transaction a batch.
func ingestFTS5(c corpus, a phaseArgs) (phaseResult, error) {
	var res phaseResult
	var spent time.Duration
	start := time.Now()
	db, err := openFTS5(a.Dir, false)
	if err != nil {
		return res, err
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE VIRTUAL TABLE docs USING fts5(ns, id UNINDEXED, kind UNINDEXED, title, summary, body, tokenize='porter unicode61')`); err != nil {
		return res, fmt.Errorf("fts5: create table: %w", err)
	}
	spent += time.Since(start)
	loaded, err := ingestBatches(c, a, &res, func(recs []store.Record) error {
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		st, err := tx.Prepare(`INSERT INTO docs (ns, id, kind, title, summary, body) VALUES (?, ?, ?, ?, ?, ?)`)
		if err != nil {
			tx.Rollback()
			return err
		}
		defer st.Close()
		for i := range recs {
			r := &recs[i]
			if _, err := st.Exec(r.NS, r.ID, r.Kind, r.Title, r.Summary, r.Body); err != nil {
				tx.Rollback()
				return err
			}
		}
		return tx.Commit()
	})
	spent += loaded
	if err != nil {
		return res, err
	}
	t := time.Now()
	// What a user's memory does once loaded: fold the WAL into the
	// database, so the disk figure is the table's own.
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return res, err
	}
	spent += time.Since(t)
	res.Seconds = spent.Seconds()
	return res, nil
}

// fts5Match is the FTS5 query for q's words in namespace ns: any of the
// words (bm25 ranks by how many and how rare) in the title, summary or
// body, each quoted so that no word is read as an operator, and the
// namespace through its own indexed column (the fastest way FTS5 has to
// keep to one namespace: a filter on an unindexed column reads every
// match's row, and took 14 ms at 20,000 records).
func fts5Match(ns, text string) string {
	var terms []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		terms = append(terms, `"`+w+`"`)
	}
	return `ns : "` + ns + `" AND {title summary body} : (` + strings.Join(terms, " OR ") + `)`
}

// searchFTS5 runs the same queries as the bleve baseline: bm25, top 50,
// within the namespace.
func searchFTS5(c corpus, a phaseArgs) (phaseResult, error) {
	db, err := openFTS5(a.Dir, true)
	if err != nil {
		return phaseResult{}, err
	}
	defer db.Close()
	st, err := db.Prepare(`SELECT id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT 50`)
	if err != nil {
		return phaseResult{}, err
	}
	defer st.Close()
	run := func(q query) (int, error) {
		rows, err := st.Query(fts5Match(q.NS, q.Text))
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return n, err
			}
			n++
		}
		return n, rows.Err()
	}
	return timeTop50(c.queries(a.Queries), run)
}
