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
# System packages some parts need, installed where we may (root with apt-get); elsewhere a note.
# apt_install PACKAGE WHAT IF_FAILED IF_MISSING
apt_install() {
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing $1 ($2) with apt-get ..." >&2
        APT_LOG="$(mktemp)"
        if ! { DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$1" \
               || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$1"; }; } \
               >"$APT_LOG" 2>&1; then
            echo "warning: installing $1 failed (log: $APT_LOG); $3" >&2
        fi
    else
        echo "note: $1 is not installed, so $4" >&2
    fi
}
# The engine sandbox (harness/sandbox.py) needs bubblewrap.
if ! command -v bwrap >/dev/null 2>&1; then
    apt_install bubblewrap "the engine sandbox" "engines run without the sandbox" \
        "engines run without the sandbox; install it: sudo apt-get install bubblewrap (Fedora: sudo dnf install bubblewrap)"
fi
# The HTML reports' tests drive Debian's chromium through playwright (scripts/test asks for it; playwright
# never downloads a browser of its own here); without it they skip.
if [ "${ARENA_BROWSER_TESTS:-0}" = 1 ] && ! command -v chromium >/dev/null 2>&1; then
    apt_install chromium "for the HTML reports' browser tests" "the browser tests skip" \
        "the HTML reports' browser tests skip; install it: sudo apt-get install chromium"
fi
# The exact n = 3 tables (about 10 s, once per machine; engines search where there is none).
"$VENV_PY" "$ROOT/scripts/build_tablebase.py" --if-missing >&2 || echo "warning: tablebase not built" >&2
# All The King's Horses near the corner (row + col <= 24: about a minute and 1.5 GB, once per machine; the
# smaller row + col <= 20 where memory is short; the solver searches where there is none, with the same answers).
"$VENV_PY" "$ROOT/scripts/build_tablebase.py" --game kings-horses --if-missing >&2 \
    || echo "warning: the kings-horses corner table was not built" >&2
# Engines start once per move: keep their bytecode compiled even where PYTHONDONTWRITEBYTECODE is set.
if [ -n "$(find "$ROOT/harness" "$ROOT/engines" -name '*.py' -newer "$STAMP" -print -quit)" ]; then
    "$VENV_PY" -m compileall -q "$ROOT/harness" "$ROOT/engines" >/dev/null && touch "$STAMP"
fi
