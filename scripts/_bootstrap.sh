# Sourced by scripts/arena and scripts/test: make sure .venv exists and is current, then set $VENV_PY.
# The venv is (re)built when it is missing or older than pyproject.toml. It is made with the real
# interpreter behind any pyenv/asdf shim, so engine subprocesses never pay for a shell shim.
set -euo pipefail
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# What set-up makes (the venv, the tables, the native cores, bytecode) is readable by every user whatever
# the caller's umask: as root, the sandbox runs each engine as a user of its own. The caller's umask is
# back at the end, for what the command itself writes.
CALLER_UMASK="$(umask)"
umask 022
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
    if ! VENV_ERROR="$("$PY" -m venv "$VENV" 2>&1)"; then
        rm -rf "$VENV"
        echo "error: $PY cannot make a venv ($(echo "$VENV_ERROR" | grep -v '^\s*$' | tail -n 1)); install its venv module" \
             "(Debian/Ubuntu: sudo apt-get install python3-venv), or set PYTHON=/path/to/another/python3" >&2
        exit 2
    fi
    LOG="$VENV/install.log"
    if ! { "$VENV_PY" -m pip install --disable-pip-version-check --upgrade pip \
           && "$VENV_PY" -m pip install --disable-pip-version-check -e "$ROOT[test]"; } >"$LOG" 2>&1; then
        tail -n 25 "$LOG" >&2
        echo "error: installing the project into $VENV failed (full log: $LOG); fix the cause and rerun" >&2
        exit 2
    fi
    touch "$STAMP"
fi
# System packages some parts need, installed where we may (root with apt-get); elsewhere a note. What the
# tests need (ARENA_TEST_PARTS=1, set by scripts/test) is required on CI (CI=1, set by .ci/run): there a
# part that cannot be installed stops the run in one line, where elsewhere its tests skip.
TESTS="${ARENA_TEST_PARTS:-0}"
on_ci() { case "${CI:-}" in ""|0|false|False|FALSE) return 1 ;; *) return 0 ;; esac; }
# missing LEVEL WHAT CONSEQUENCE FIX: one line (LEVEL note or warning); for CI's tests an error that stops the run.
missing() {
    if [ "$TESTS" = 1 ] && on_ci; then
        echo "error: $2, and CI runs every test; $4" >&2
        exit 2
    fi
    echo "$1: $2, so $3; $4" >&2
}
# apt_install PACKAGE WHAT CONSEQUENCE FIX: install PACKAGE (needed for WHAT), or say what that means.
apt_install() {
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing $1 ($2) with apt-get ..." >&2
        APT_LOG="$(mktemp)"
        if ! { DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$1" \
               || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$1"; }; } \
               >"$APT_LOG" 2>&1; then
            missing warning "installing $1 ($2) failed" "$3" "apt-get's log: $APT_LOG"
        fi
    else
        missing note "$1 ($2) is not installed" "$3" "install it: $4"
    fi
}
# The engine sandbox (harness/referee/sandbox.py) needs bubblewrap.
if ! command -v bwrap >/dev/null 2>&1; then
    apt_install bubblewrap "the engine sandbox" "engines run without the sandbox" \
        "sudo apt-get install bubblewrap (Fedora: sudo dnf install bubblewrap)"
fi
if [ "$TESTS" = 1 ]; then
    # The HTML reports' tests drive Debian's chromium through playwright (playwright never downloads a
    # browser of its own here).
    command -v chromium >/dev/null 2>&1 || apt_install chromium "the HTML pages' browser tests" \
        "those tests skip" "sudo apt-get install chromium"
    # A sandbox test links a student's folder to the system's own Python.
    [ -x /usr/bin/python3 ] || apt_install python3 "the system Python in /usr/bin" \
        "a sandbox test skips" "sudo apt-get install python3"
fi
# The exact n = 3 tables (about 10 s, once per machine; engines search where there is none; the tests
# build their own where there is none). ARENA_SETUP_TABLES=0 skips them (CI's runs in other settings).
if [ "${ARENA_SETUP_TABLES:-1}" != 0 ]; then
    "$VENV_PY" "$ROOT/scripts/build_tablebase.py" --if-missing >&2 || echo "warning: tablebase not built" >&2
    # All The King's Horses near the corner (row + col <= 24: about a minute and 1.5 GB, once per machine; the
    # smaller row + col <= 20 where memory is short; the solver searches where there is none, with the same answers).
    "$VENV_PY" "$ROOT/scripts/build_tablebase.py" --game kings-horses --if-missing >&2 \
        || echo "warning: the kings-horses corner table was not built" >&2
fi
# The native search core (engines/native/*.c; the cluster benchmark's engine in C is built with the same
# compiler in a test), compiled with the system C compiler where it is missing or
# older than its sources; where it cannot be built the engines search in pure Python (one warning line).
if ! command -v cc >/dev/null 2>&1 && ! command -v gcc >/dev/null 2>&1; then
    apt_install gcc "a C compiler for the native search core" "the engines search in pure Python (slower)" \
        "sudo apt-get install gcc"
fi
# The cores are Python extension modules, built against the interpreter's headers: an installer's or
# pyenv's Python has them; Debian's keeps them in python3.X-dev.
if ! "$VENV_PY" -c 'import sys; sys.path.insert(0, sys.argv[1]); from engines.native.build import python_headers; sys.exit(python_headers() is None)' "$ROOT" \
    && [ "$("$VENV_PY" -c 'import sys; print(sys.base_prefix)')" = /usr ]; then
    PY_DEV="python$("$VENV_PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')-dev"
    apt_install "$PY_DEV" "Python's headers for the native search core" "the engines search in pure Python (slower)" \
        "sudo apt-get install $PY_DEV"
fi
"$VENV_PY" "$ROOT/engines/native/build.py" --if-stale || true
# Engines start once per move: keep their bytecode compiled even where PYTHONDONTWRITEBYTECODE is set (on a
# fresh set-up too, where every source is older than the venv).
COMPILED="$VENV/.compiled"
if [ ! -f "$COMPILED" ] || [ -n "$(find "$ROOT/harness" "$ROOT/engines" -name '*.py' -newer "$COMPILED" -print -quit)" ]; then
    "$VENV_PY" -m compileall -q "$ROOT/harness" "$ROOT/engines" >/dev/null && touch "$COMPILED"
fi
# As root, the sandbox runs each engine as a user of its own, which must read the engines' code, the venv
# and the tables: a checkout or venv made under a umask of 077 is opened to reading (not writing), with a note.
if [ "$(id -u)" = 0 ]; then
    TABLES="${BETSY_TABLES:-${HOME:-~}/.cache/betsy-arena}"
    # closed PATH... [-maxdepth 0]: the first folder others cannot list and enter, or file they cannot read.
    closed() { find "$@" \( -type d ! -perm -o+rx \) -print -quit -o \( ! -type d ! -perm -o+r \) -print -quit 2>/dev/null || true; }
    CLOSED="$(closed "$ROOT" "$VENV" "$VENV/bin" "$VENV/pyvenv.cfg" -maxdepth 0)"
    CLOSED="${CLOSED:-$(closed "$ROOT/harness" "$ROOT/engines" "$ROOT/scripts" "$TABLES")}"
    if [ -n "$CLOSED" ]; then
        chmod go+rX "$ROOT"
        chmod -R go+rX "$ROOT/harness" "$ROOT/engines" "$ROOT/scripts" "$VENV"
        [ -d "$TABLES" ] && chmod -R go+rX "$TABLES"
        echo "note: made the engines' code, $VENV and $TABLES readable by all users ($CLOSED was not): as root, the" \
             "sandbox runs each engine as a user of its own" >&2
    fi
fi
umask "$CALLER_UMASK"
