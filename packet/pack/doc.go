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
// the whole pack; and the rendered pack is counted again whole. The
// default categories (DefaultCategories) know tests, fixtures, docs and
// lock files by name in any language, and put sources in "src"; with
// them, the sources go in the order of srcLevel (the front doors of the
// packages last, the top of the tree last), largest first within it.
//
// It is a client of the same budget engine as package packet
// (budget.Fit), with its own walk (.gitignore honoured, binary files
// listed but not packed) and its own renderers (md, xml, json).
//
// # Below the frame
//
// The frame is what a pack holds with no file in it: the heading, the
// request and totals, the tree, the files listed but not packed, and a
// warning; in XML and JSON the wrapper around them. lmpack, given a
// budget smaller than its frame, drops every file, writes the frame,
// warns and exits 2. Lore keeps that rule but also its own: nothing
// written is ever over the budget. So below the frame every file is
// dropped and the pack is cut to the largest of these forms that fits:
// the title and the warning; the title alone; an empty document of the
// format ("# Pack", "<pack/>", "{}"); and, where not even that fits (md
// and xml at a budget of a token or two), nothing at all: an empty
// output is the one thing within every budget, and the report says why.
// The exit code is 2 (FrameOnly is set), and the report's warning names
// the frame's size, the smallest budget that holds the frame whole: at
// that budget the pack is no longer cut.
package pack
