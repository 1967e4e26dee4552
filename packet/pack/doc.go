// Package pack is the files profile of Lore: `lore pack DIR` packs the
// files of a directory into one budgeted Context Packet for a model.
//
// It keeps lmpack's rules (the reference is lmpack's budget page): each
// file has a category (the first matching pattern, else its top-level
// directory, else (root)); over budget whole files are dropped, never
// parts of one, categories from the end of the priority first (the
// categories it does not list before any listed one, as one pool) and the
// largest first within a category; then every dropped file that still
// fits is put back, most important first, decided by the real count of
// the whole pack; and the rendered pack is counted again whole. A budget
// below the frame gives the frame alone, a warning and exit 2. The
// default categories (DefaultCategories) know tests, fixtures, docs and
// lock files by name in any language, and put sources in "src"; with
// them, the sources go in the order of srcLevel (the front doors of the
// packages last, the top of the tree last), largest first within it.
//
// It is a client of the same budget engine as package packet
// (budget.Fit), with its own walk (.gitignore honoured, binary files
// listed but not packed) and its own renderers (md, xml, json).
package pack
