#!/usr/bin/env bash
# HistoryRead raw of one node's VALUES values over opc.tcp, continuation points of 10,000 values
# (numValuesPerNode, Part 11 §6.5.3; Part 4 §7.9), by our client (history_read_bench), against
# `uactor run` (SQLite history) and node-opcua's server (tests/interop/node_history_server.js, in
# memory) side by side: the same ramp (value i at 2026-01-01T00:00:00Z + i s), alternating the two
# servers ROUNDS times, each read timed (wall, values/s) with the server process's CPU per value
# (/proc/PID/stat). Then a processed Average over the first day (86,400 values) in 1,440 intervals
# of 60 s (Part 11 §6.5.4) from SQLite, cold (the first read after `uactor run` starts, the file's
# pages dropped from the page cache) and warm, and from node-opcua; then the storage per value of
# SQLite and, with --postgres, of PostgreSQL (Debian's 15, started here in the temp folder on a Unix
# socket only) and the raw read from `uactor run` with PostgreSQL as its store (the database's CPU
# beside ours).
#
#   bash bench/history/history_read_ab.sh [BUILD_DIR] [--values N] [--rounds R] [--postgres]
#
# Needs BUILD_DIR/cli/uactor, BUILD_DIR/bench/history/{history_fill,history_read_bench} (cmake
# --build BUILD_DIR --target uactor history_fill history_read_bench), node and
# tests/interop/node_modules. Every process it starts is stopped on exit (trap); ports are the
# kernel's choice (port 0, node_server.js's freePort).
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$root/build"
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then build="$(cd "$1" && pwd)"; shift; fi
values=1000000
rounds=3
postgres=0
while [ $# -gt 0 ]; do
    case "$1" in
        --values) values="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --postgres) postgres=1; shift ;;
        *) echo "history_read_ab: unknown argument $1" >&2; exit 2 ;;
    esac
done
uactor="$build/cli/uactor"
fill="$build/bench/history/history_fill"
bench="$build/bench/history/history_read_bench"
interop="$root/tests/interop"
for f in "$uactor" "$fill" "$bench"; do
    [ -x "$f" ] || { echo "history_read_ab: $f missing (cmake --build $build --target uactor history_fill history_read_bench)" >&2; exit 2; }
done
command -v node >/dev/null && [ -d "$interop/node_modules" ] || { echo "history_read_ab: node or $interop/node_modules missing" >&2; exit 2; }

tmp="$(mktemp -d)"
uactor_pid=""
node_pid=""
pg_bin=/usr/lib/postgresql/15/bin
pg_data=""
stop_pid() {  # PID: SIGINT, then SIGKILL after 10 s
    [ -n "$1" ] || return 0
    kill -INT "$1" 2>/dev/null
    for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$1" 2>/dev/null
    wait "$1" 2>/dev/null
}
cleanup() {
    stop_pid "$uactor_pid"
    stop_pid "$node_pid"
    [ -n "$pg_data" ] && runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pg_data" -m immediate stop >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'echo "history_read_ab: interrupted"; exit 1' INT TERM

# wait_listening FILE: the URL of the `listening on URL` line of FILE, within 120 s (node-opcua fills
# a million values in seconds, more on a loaded machine).
wait_listening() {
    local url=""
    for _ in $(seq 1200); do
        url="$(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$1" | head -n 1)"
        [ -n "$url" ] && { echo "$url"; return 0; }
        sleep 0.1
    done
    echo "history_read_ab: no 'listening on' in $1 within 120 s" >&2
    return 1
}

start_uactor() {
    (cd "$tmp" && exec "$uactor" run --config plant.toml >uactor.out 2>uactor.err </dev/null) &
    uactor_pid=$!
    uactor_url="$(wait_listening "$tmp/uactor.out")" || { tail "$tmp/uactor.err"; exit 1; }
}

echo "history_read_ab: $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores," \
     "node-opcua $(node -p "require('$interop/node_modules/node-opcua/package.json').version"), node $(node --version)"

# (a) The ramp into a fresh SQLite file through the store's API, as the historian writes it.
node_id_uactor="ns=2;s=History.Ramp"
node_id_node="ns=1;s=History.Ramp"
"$fill" --sqlite "$tmp/history.sqlite" "$node_id_uactor" --values "$values" || exit 1
bytes=$(stat -c %s "$tmp/history.sqlite")
echo "storage sqlite file_bytes=$bytes values=$values bytes_per_value=$(awk -v b="$bytes" -v n="$values" 'BEGIN { printf "%.1f", b / n }')"
if command -v sqlite3 >/dev/null; then  # where the bytes are: the table and its (node, time, seq) index
    sqlite3 "$tmp/history.sqlite" "SELECT 'storage sqlite part=' || name || ' bytes=' || SUM(pgsize) FROM dbstat GROUP BY name HAVING SUM(pgsize) > 4096" 2>/dev/null
fi

# (b) `uactor run` serving that file: one historizing variable, its history kept whatever its age.
cat >"$tmp/plant.toml" <<EOF
[server]
demo = false
[[server.endpoints]]
port = 0
listen_address = "127.0.0.1"
security = ["none"]
[[namespaces]]
uri = "urn:uactor:history-bench"
[history]
backend = "sqlite"
path = "history.sqlite"
retention_days = 0
max_values_per_node = 0
[[variables]]
id = "$node_id_uactor"
type = "Double"
historize = true
EOF
start_uactor

# (c) node-opcua with the same ramp in memory.
node "$interop/node_history_server.js" --port 0 --values "$values" --max-seconds 3600 >"$tmp/node.out" 2>"$tmp/node.err" </dev/null &
node_pid=$!
node_url="$(wait_listening "$tmp/node.out")" || { tail "$tmp/node.err"; exit 1; }
echo "history_read_ab: uactor run pid $uactor_pid at $uactor_url, node-opcua pid $node_pid at $node_url"

read_uactor() { timeout 600 "$bench" "$uactor_url" "$node_id_uactor" --values "$1" --server-pid "$uactor_pid" --label uactor "${@:2}"; }
read_node() { timeout 600 "$bench" "$node_url" "$node_id_node" --values "$1" --server-pid "$node_pid" --label node-opcua "${@:2}"; }

# (d) Raw reads, one warm-up each, then the rounds alternating which server goes first.
failed=0
read_uactor "$values" --label uactor-warmup || failed=1
read_node "$values" --label node-opcua-warmup || failed=1
for r in $(seq "$rounds"); do
    if [ $((r % 2)) -eq 1 ]; then
        read_uactor "$values" || failed=1
        read_node "$values" || failed=1
    else
        read_node "$values" || failed=1
        read_uactor "$values" || failed=1
    fi
done

# Average over one day of 1 s values in 1,440 intervals: cold (`uactor run` started again, the
# file's pages dropped from the page cache: dd's nocache with count=0 drops the whole file's), then warm.
day=$((values < 86400 ? values : 86400))
stop_pid "$uactor_pid"
uactor_pid=""
dd if="$tmp/history.sqlite" iflag=nocache count=0 status=none
echo "history_read_ab: history.sqlite in the page cache before the cold read: $(fincore --noheadings --output RES "$tmp/history.sqlite" 2>/dev/null || echo '?')"
start_uactor
read_uactor "$day" --average-interval-ms 60000 --label uactor-cold || failed=1
read_uactor "$day" --average-interval-ms 60000 --label uactor-warm --reads 5 || failed=1
read_node "$day" --average-interval-ms 60000 --reads 3 || failed=1

# Storage in PostgreSQL: the same ramp through the same API, the table's partitions with their
# indexes (pg_total_relation_size; a partitioned table's own size is 0).
if [ "$postgres" -eq 1 ] && [ -x "$pg_bin/initdb" ]; then
    pg_data="$tmp/pg/data"
    chmod 711 "$tmp"  # postgres reaches its folder below it
    mkdir -p "$tmp/pg/sock" && chown -R postgres "$tmp/pg"
    runuser -u postgres -- "$pg_bin/initdb" -D "$pg_data" -A trust >/dev/null || exit 1
    runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pg_data" -o "-k $tmp/pg/sock -c listen_addresses=''" -l "$tmp/pg/log" -w start >/dev/null || exit 1
    "$fill" --postgres "host=$tmp/pg/sock user=postgres dbname=postgres" "$node_id_uactor" --values "$values" || exit 1
    psql -h "$tmp/pg/sock" -U postgres -d postgres -Atq -c "VACUUM ANALYZE" -c "
        SELECT 'storage postgresql part=' || c.relname || ' table_bytes=' || pg_relation_size(c.oid) ||
               ' index_bytes=' || pg_indexes_size(c.oid) || ' total_bytes=' || pg_total_relation_size(c.oid) ||
               ' bytes_per_value=' || round(pg_total_relation_size(c.oid)::numeric / $values, 1)
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'uactor_history_values'::regclass AND pg_total_relation_size(c.oid) > 8192"
    # The raw read from `uactor run` with that database as its store: our server's CPU per value as
    # above, and the database's (the postmaster and its backends: /proc/PID/stat of each) beside it.
    pm=$(head -n 1 "$pg_data/postmaster.pid")
    pg_cpu_ticks() {
        local total=0 p
        for p in "$pm" $(ps --ppid "$pm" -o pid=); do
            total=$((total + $(awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
        done
        echo "$total"
    }
    stop_pid "$uactor_pid"
    uactor_pid=""
    sed -e 's|^backend = "sqlite"|backend = "postgresql"|' \
        -e "s|^path = \"history.sqlite\"|connection = \"host=$tmp/pg/sock user=postgres dbname=postgres\"|" \
        "$tmp/plant.toml" >"$tmp/plant-pg.toml" && mv "$tmp/plant-pg.toml" "$tmp/plant.toml"
    start_uactor
    read_uactor "$values" --label uactor-postgresql-warmup || failed=1
    for r in $(seq "$rounds"); do
        before=$(pg_cpu_ticks)
        read_uactor "$values" --label uactor-postgresql || failed=1
        awk -v t=$(($(pg_cpu_ticks) - before)) -v hz="$(getconf CLK_TCK)" -v n="$values" \
            'BEGIN { printf "postgresql cpu_s=%.2f cpu_ns_per_value=%.0f\n", t / hz, t / hz * 1e9 / n }'
    done
fi

echo "history_read_ab: done $(date -u '+%H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$failed"
