# Sourced by the scripts that run our client against tests/interop/node_server.js.
#   start_node_server NAME [node_server.js OPTIONS...]
# Exits 77 (ctest's skip) without node, node_modules or node_server.js; otherwise starts the
# server (port 0, exits by itself after 150 s), waits at most 60 s for its `listening on URL` line
# and sets `url` and `tmp` (a scratch folder). The server is stopped and `tmp` removed on exit.
# Needs `here` (this folder). NODE_SERVER_JS names another server script of this folder that takes
# --port 0 --max-seconds S and prints the same line (node_history_server.js).

start_node_server() {
    local name="$1"
    shift
    if ! command -v node >/dev/null 2>&1; then echo "skipped: node missing"; exit 77; fi
    if [ ! -d "$here/node_modules" ]; then echo "skipped: node_modules missing"; exit 77; fi
    local script="${NODE_SERVER_JS:-node_server.js}"
    if [ ! -f "$here/$script" ]; then echo "skipped: $script missing"; exit 77; fi

    tmp="$(mktemp -d)"
    server_pid=""
    trap stop_node_server EXIT
    # Its stdout carries one line, `listening on URL`; read it as it comes, no polling.
    coproc NODE_SERVER { exec node "$here/$script" --port 0 --max-seconds 150 "$@" 2>"$tmp/server.err"; }
    server_pid="$NODE_SERVER_PID"
    local line=""
    if ! read -r -t 60 line <&"${NODE_SERVER[0]}"; then
        echo "$name: $script did not say it listens within 60 s"
        cat "$tmp/server.err"
        exit 1
    fi
    case "$line" in
        "listening on "*) url="${line#listening on }" ;;
        *) echo "$name: unexpected first line: $line"; cat "$tmp/server.err"; exit 1 ;;
    esac
    echo "$name: node-opcua server at $url"
}

stop_node_server() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null
        # SIGTERM ends it at once; SIGKILL if it has not gone within 5 s.
        for _ in 1 2 3 4 5; do kill -0 "$server_pid" 2>/dev/null || break; sleep 1; done
        kill -9 "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
    rm -rf "$tmp"
}
