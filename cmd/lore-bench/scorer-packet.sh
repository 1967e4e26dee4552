#!/bin/sh
# One Lore packet for the shared evidence-recall scorer (its -cmd): the
# markdown packet's records in packet order, each with the text the packet
# shows of it (the body, its summary, or an excerpt with "[…]" gap markers;
# "" for a title alone), and the packet's own token count, as
# {"records": [{"id": ..., "text": ...}, ...], "tokens": N}. The scorer
# passes the question in LOCOMO_NAMESPACE, LOCOMO_BUDGET and
# LOCOMO_QUESTION; LORE_STORE names the store the scorer's -setup imported
# into. Needs jq. lore exits 2 when it deferred something, which is a
# packet all the same. The markdown itself shows a record's own headings
# two levels down ("## x" as "#### x"); .text keeps them as written.
out=$(lore --json packet --format md --ns "$LOCOMO_NAMESPACE" --profile agent \
  --encoding cl100k_base --budget "$LOCOMO_BUDGET" "$LOCOMO_QUESTION" 2>/dev/null)
code=$?
[ $code -eq 0 ] || [ $code -eq 2 ] || exit $code
printf '%s' "$out" | jq -c '{records: [.records[] | {id, text}], tokens: .total.tokens}'
