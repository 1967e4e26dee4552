#!/usr/bin/env bash
# The README quickstart against a 3-member lore-cluster on loopback: the
# cluster's members are child processes of lore-cluster, stopped (with it)
# at the end. Usage: cluster-quickstart.sh LORE_BIN LORE_CLUSTER_BIN
set -euo pipefail
lore=$1 cluster=$2
work=$(mktemp -d)
"$cluster" -n 3 -dir "$work/c" > "$work/out" 2> "$work/err" &
pid=$!
cleanup() { kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
for _ in $(seq 1 120); do
  grep -q '^store ' "$work/out" && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/err"; echo "lore-cluster exited"; exit 1; }
  sleep 0.5
done
cat "$work/out"
[ "$(grep -c '^member [0-9] pid [0-9]* client http://127.0.0.1:[0-9]*$' "$work/out")" -eq 3 ]
export LORE_STORE=$(sed -n 's/^store //p' "$work/out") LORE_LOCAL=$work/local
"$lore" init
"$lore" import --ns tidewater-lamp testdata/demo/tidewater-lamp
# Outputs go to files before grep: `cmd | grep -q` closes the pipe at the
# first match, and under pipefail the writer's SIGPIPE (141) fails the run.
"$lore" ls --ns tidewater-lamp --kind character > "$work/ls.txt"
grep -q mara "$work/ls.txt"
echo "The bell rings at slack water." | \
  "$lore" put --ns tidewater-lamp --kind canon --title "The tide bell" --summary "Rings at slack water." tide-bell
"$lore" link --ns tidewater-lamp tide-bell appears_in scene-03
"$lore" neighbors --ns tidewater-lamp --hops 2 scene-03 > "$work/nb.txt"
grep -q tide-bell "$work/nb.txt"
"$lore" search --ns tidewater-lamp "second light" > "$work/search.txt"
grep -q rk-second-light "$work/search.txt"
"$lore" packet --ns tidewater-lamp --focus scene-03 --scope scene "who keeps the lesser light?" > "$work/etcd.md"
# The same packet from a bbolt store with the same content: same bytes.
(cd "$work" && unset LORE_STORE && "$lore" init > /dev/null \
  && "$lore" import --ns tidewater-lamp "$OLDPWD/testdata/demo/tidewater-lamp" > /dev/null 2>&1 \
  && echo "The bell rings at slack water." | "$lore" put --ns tidewater-lamp --kind canon --title "The tide bell" --summary "Rings at slack water." tide-bell > /dev/null \
  && "$lore" link --ns tidewater-lamp tide-bell appears_in scene-03 > /dev/null \
  && "$lore" packet --ns tidewater-lamp --focus scene-03 --scope scene "who keeps the lesser light?" > bolt.md 2> /dev/null)
cmp "$work/etcd.md" "$work/bolt.md"
"$lore" check
echo "ok: quickstart on a 3-member cluster; its packet is byte-identical to bbolt's"
