# Sourced by scripts/arena and scripts/test: make sure .venv exists and is current, then set $VENV_PY.
# The venv is (re)built when it is missing or older than pyproject.toml. It is made with the real
# interpreter behind any pyenv/asdf shim, so engine subprocesses never pay for a shell shim.
set -euo pipefail
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
STAMP="$VENV/.installed"
VENV_PY="$VENV/bin/python"

find_python() {
    local candidate real
    for candidate in "${PYTHON:-}" python3 python; do
        [ -n "$candidate" ] || continue
        command -v "$candidate" >/dev/null 2>&1 || continue
        real="$("$candidate" -c 'import sys; assert sys.version_info >= (3, 10); print(sys.executable)' 2>/dev/null)" || continue
        [ -n "$real" ] && { echo "$real"; return 0; }
    done
    echo "error: Python >= 3.10 not found; install it or set PYTHON=/path/to/python3" >&2
    return 2
}

if [ ! -x "$VENV_PY" ] || [ ! -f "$STAMP" ] || [ "$ROOT/pyproject.toml" -nt "$STAMP" ]; then
    PY="$(find_python)"
    echo "setting up $VENV with $PY ..." >&2
    rm -rf "$VENV"
    "$PY" -m venv "$VENV"
    LOG="$VENV/install.log"
    if ! { "$VENV_PY" -m pip install --disable-pip-version-check --upgrade pip \
           && "$VENV_PY" -m pip install --disable-pip-version-check -e "$ROOT[test]"; } >"$LOG" 2>&1; then
        tail -n 25 "$LOG" >&2
        echo "error: installing the project into $VENV failed (full log: $LOG); fix the cause and rerun" >&2
        exit 2
    fi
    touch "$STAMP"
fi
# The engine sandbox (harness/sandbox.py) needs bubblewrap: install it where we may (root with apt-get).
if ! command -v bwrap >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing bubblewrap (the engine sandbox) with apt-get ..." >&2
        APT_LOG="$(mktemp)"
        if ! { DEBIAN_FRONTEND=noninteractive apt-get install -y -q bubblewrap \
               || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q bubblewrap; }; } \
               >"$APT_LOG" 2>&1; then
            echo "warning: installing bubblewrap failed (log: $APT_LOG); engines run without the sandbox" >&2
        fi
    else
        echo "note: bubblewrap is not installed, so engines run without the sandbox; install it: sudo apt-get install bubblewrap (Fedora: sudo dnf install bubblewrap)" >&2
    fi
fi
# The HTML reports' tests drive Debian's chromium through playwright (scripts/test asks for it; playwright
# never downloads a browser of its own here): install it where we may (root with apt-get), else they skip.
if [ "${ARENA_BROWSER_TESTS:-0}" = 1 ] && ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing chromium (for the HTML reports' browser tests) with apt-get ..." >&2
        APT_LOG="$(mktemp)"
        if ! { DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium \
               || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; }; } \
               >"$APT_LOG" 2>&1; then
            echo "warning: installing chromium failed (log: $APT_LOG); the browser tests skip" >&2
        fi
    else
        echo "note: chromium is not installed, so the HTML reports' browser tests skip; install it: sudo apt-get install chromium" >&2
    fi
fi
# The exact n = 3 tables (about 10 s, once per machine; engines search where there is none).
"$VENV_PY" "$ROOT/scripts/build_tablebase.py" --if-missing >&2 || echo "warning: tablebase not built" >&2
# Engines start once per move: keep their bytecode compiled even where PYTHONDONTWRITEBYTECODE is set.
if [ -n "$(find "$ROOT/harness" "$ROOT/engines" -name '*.py' -newer "$STAMP" -print -quit)" ]; then
    "$VENV_PY" -m compileall -q "$ROOT/harness" "$ROOT/engines" >/dev/null && touch "$STAMP"
fi
