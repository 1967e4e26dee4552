#!/bin/sh
# One Lore packet for the shared evidence-recall scorer (its -cmd): the
# markdown packet's records in packet order, each with the text the packet
# shows of it, and the packet's own token count, as
# {"records": [{"id": ..., "text": ...}, ...], "tokens": N}. The scorer
# passes the question in LOCOMO_NAMESPACE, LOCOMO_BUDGET and
# LOCOMO_QUESTION; LORE_STORE names the store the scorer's -setup imported
# into. Needs jq. lore exits 2 when it deferred something, which is a
# packet all the same.
#
# lore --json gives the records without their text, so each one's text is
# cut from .rendered: the lines after its heading line (id ... title, then
# " · excerpt" for an excerpt) up to the next record's heading or the blank
# line before a "## Rank" or "## Deferred" heading, less the "Summary: "
# and "Full text:" frame; "" for a record collapsed to its title. The text
# is as shown: a record's own markdown headings two levels down.
out=$(lore --json packet --format md --ns "$LOCOMO_NAMESPACE" --profile agent \
  --encoding cl100k_base --budget "$LOCOMO_BUDGET" "$LOCOMO_QUESTION" 2>/dev/null)
code=$?
[ $code -eq 0 ] || [ $code -eq 2 ] || exit $code
printf '%s' "$out" | jq -ec '
def oneline: [splits("\\s+") | select(. != "")] | join(" ");
def heading($r):
  ($r.title // "") as $t
  | ($t != "" and $t != $r.id) as $titled
  | ((if $titled then " " + ($t | oneline) else "" end)
     + (if $r.form == "excerpt" then " · excerpt" else "" end)) as $suf
  | ($titled and . == $r.id + $suf)
    or ((startswith("[" + $r.id + "]") or startswith("[" + $r.id + " "))
        and endswith("]" + $suf));
def frame_break($L; $k):
  $L[$k] == "" and (($L[$k + 1] // "") | test("^## (Rank |Deferred)"));
def shown($r):
  if $r.form == "title" then ""
  elif $r.form == "summary" then .[:-1] | join("\n") | ltrimstr("Summary: ")
  elif length > 0 and (.[-1] | test("^Full text: `+lore ")) then .[:-1] | join("\n")
  else join("\n") end;
.records as $R
| (.rendered | split("\n")) as $L
| (reduce range(0; $R | length) as $i ([];
    (if length > 0 then .[-1] + 1 else 0 end) as $from
    | . + [first(range($from; $L | length) | select($L[.] | heading($R[$i])))
           // error("no heading for \($R[$i].id) in .rendered")])) as $H
| {records: [range(0; $R | length) as $i
    | ($H[$i + 1] // ($L | length)) as $next
    | (first(range($H[$i] + 1; $next) | select(frame_break($L; .))) // $next) as $stop
    | {id: $R[$i].id, text: ($L[$H[$i] + 1:$stop] | shown($R[$i]))}],
   tokens: .total.tokens}'
