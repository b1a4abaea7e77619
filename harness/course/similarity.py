"""Similar submissions, for course staff to look at (never an automatic penalty).

Two kinds of evidence, each a pure function of its inputs:

- **Source**: winnowing (Schleimer, Wilkerson and Aiken, SIGMOD 2003, as MOSS uses). A submission's
  source files become normalised tokens (comments, docstrings and layout dropped; every identifier is
  one symbol ``V``, every string ``S``, every number ``N``; keywords, builtins and operators kept), the
  tokens of each file are hashed in k-grams of ``K`` tokens, and winnowing with windows of ``W``
  k-grams keeps a few of those hashes: any run of at least ``K + W - 1`` = 20 tokens that two
  submissions share is found, and no run shorter than ``K`` is. Code most of the class shares (the
  starter code, the protocol boilerplate) is dropped before comparing.
- **Moves**: the move each program chose in a fixed, seeded set of quiet mid-game positions (no win in
  one, no threat to stop, many legal moves), where programs of different authors usually differ; a
  pair is flagged when it agrees almost everywhere and far more than the class's pairs do.
"""

from __future__ import annotations

import hashlib
import io
import math
import os
import re
import stat
import tokenize
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from harness.rng import Rng

if TYPE_CHECKING:
    from harness.games.game import Position
    from harness.games.registry import Game

K = 12
"""Tokens per k-gram. A normalised Python statement is short (``V = V ( V , V )`` is 8 tokens), so a
shorter k-gram matches idioms every program has (``for V in range ( len ( V ) ) :`` is 11); 12 is the
shortest that leaves those out."""
W = 9
"""k-grams per winnowing window: the guarantee threshold ``K + W - 1`` is 20 tokens, two or three lines."""
PYTHON_SUFFIXES = frozenset({".py", ".pyw"})
C_LIKE_SUFFIXES = frozenset({".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".java", ".js", ".mjs", ".ts",
                             ".go", ".rs", ".cs", ".kt", ".swift"})
SOURCE_SUFFIXES = PYTHON_SUFFIXES | C_LIKE_SUFFIXES
"""The files fingerprinted. Text files (``.txt``, ``.md``) are not: prose is not program code, and a
README copied from the assignment would only add noise. A file without a suffix counts when its first
line is a ``#!`` line naming python (a program run as ``./betsy``)."""
SKIPPED_FOLDERS = frozenset({"__pycache__", "__MACOSX", "node_modules"})
"""Folders never read, with every folder whose name starts with a dot (``.git``, ``.venv``)."""
MAX_BYTES = 1 << 20
"""Source read per submission, at most (files in path order; the one that crosses it is cut)."""

# Fixed lists, not ``keyword.kwlist`` or ``dir(builtins)``: those change with the Python version, and
# fingerprints must be the same on every machine.
PYTHON_KEYWORDS = frozenset((
    "False None True and as assert async await break class continue def del elif else except finally for "
    "from global if import in is lambda nonlocal not or pass raise return try while with yield print exec"
).split())
PYTHON_BUILTINS = frozenset((
    "abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex "
    "delattr dict dir divmod enumerate eval exit filter float format frozenset getattr globals hasattr hash "
    "help hex id input int isinstance issubclass iter len list locals map max memoryview min next object oct "
    "open ord pow property quit range repr reversed round set setattr slice sorted staticmethod str sum super "
    "tuple type vars zip Ellipsis NotImplemented __name__ __main__ __init__ "
    # Python 2
    "xrange raw_input unicode long basestring reduce unichr file execfile cmp reload intern apply buffer "
    "coerce "
    # exceptions
    "ArithmeticError AssertionError AttributeError BaseException BlockingIOError BrokenPipeError BufferError "
    "ChildProcessError ConnectionError EOFError Exception FileExistsError FileNotFoundError FloatingPointError "
    "GeneratorExit IOError ImportError IndentationError IndexError InterruptedError IsADirectoryError KeyError "
    "KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError NotADirectoryError "
    "NotImplementedError OSError OverflowError PermissionError ProcessLookupError RecursionError "
    "ReferenceError RuntimeError StandardError StopIteration SyntaxError SystemError SystemExit TabError "
    "TimeoutError TypeError UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError ValueError "
    "Warning ZeroDivisionError"
).split())
C_KEYWORDS = frozenset((
    "auto break case char const continue default do double else enum extern float for goto if inline int long "
    "register restrict return short signed sizeof static struct switch typedef union unsigned void volatile "
    "while bool true false NULL nullptr class public private protected virtual template typename namespace "
    "using new delete this throw try catch operator friend const_cast static_cast dynamic_cast "
    "reinterpret_cast auto std include define ifdef ifndef endif pragma abstract boolean byte extends final "
    "finally implements import instanceof interface native package super synchronized throws transient "
    "var let function typeof undefined null of in async await yield export from func go defer chan map range "
    "struct fn let mut impl pub use mod match loop self Self string String"
).split())

VARIABLE, STRING, NUMBER = "V", "S", "N"
_BOUNDARY = "\n"
"""A statement boundary in the token stream before docstrings are dropped (never in the output)."""


class Token(NamedTuple):
    """One normalised token: its symbol and the source line it starts on (1-based)."""

    symbol: str
    line: int


# --- Python tokens --------------------------------------------------------------------------------

# Python 3.11's operators (token.EXACT_TOKEN_TYPES), longest first: ``<>`` is two tokens, as there.
_PY_OPERATORS = sorted((
    "!= % %= & &= ( ) * ** **= *= + += , - -= -> . ... / // //= /= : := ; < << <<= <= = == > >= >> >>= @ @= "
    "[ ] ^ ^= { | |= } ~"
).split(), key=len, reverse=True)
# The literal forms of Python's own tokenize module, so that both tokenizers split a text alike.
_DIGITS = r"[0-9](?:_?[0-9])*"
_EXPONENT = rf"[eE][-+]?{_DIGITS}"
_POINT_FLOAT = rf"(?:{_DIGITS}\.(?:{_DIGITS})?|\.{_DIGITS})(?:{_EXPONENT})?"
_FLOAT = rf"(?:{_POINT_FLOAT}|{_DIGITS}{_EXPONENT})"
_INT = r"(?:0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0(?:_?0)*|[1-9](?:_?[0-9])*)"
_NUMBER = rf"(?:{_DIGITS}[jJ]|{_FLOAT}[jJ]|{_FLOAT}|{_INT})"
_PREFIX = r"(?:[rR][bBfF]?|[bBfF][rR]?|[uU])?"
_STRING = (rf"{_PREFIX}(?:'''(?:[^'\\]|\\.|'(?!''))*(?:'''|\Z)|\"\"\"(?:[^\"\\]|\\.|\"(?!\"\"))*(?:\"\"\"|\Z)"
           r"|'[^\n'\\]*(?:\\.[^\n'\\]*)*'|\"[^\n\"\\]*(?:\\.[^\n\"\\]*)*\")")
_PY_TOKEN = re.compile(
    r"(?P<space>[ \f\t]+|\\\n|\#[^\n]*)|(?P<newline>\n)"
    rf"|(?P<number>{_NUMBER})|(?P<op>{'|'.join(map(re.escape, _PY_OPERATORS))})"
    rf"|(?P<string>{_STRING})|(?P<name>\w+)",
    re.DOTALL)


def normalised_tokens(source: str, suffix: str) -> list[Token]:
    """The normalised tokens of one file's text; ``suffix`` (``.py``, ``.c``...) picks the tokenizer.

    Python source goes through the standard ``tokenize`` module; where it fails (Python 2 that it
    cannot read, a file cut short) a regular-expression tokenizer that splits and normalises the same
    way takes over, so this never raises."""
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    if suffix.lower() not in PYTHON_SUFFIXES:
        return _c_like_tokens(text)
    try:
        raw = list(_python_tokens(text))
    except Exception:  # tokenize's errors vary with the Python version: any failure means the fallback
        raw = list(_python_regex_tokens(text))
    return _drop_docstrings(raw)


def _python_name(name: str) -> str:
    return name if name in PYTHON_KEYWORDS or name in PYTHON_BUILTINS else VARIABLE


def _python_tokens(text: str) -> Iterator[Token]:
    """Raw tokens by ``tokenize``, statement boundaries included, strings as ``S`` (f-strings whole)."""
    fstring_start = getattr(tokenize, "FSTRING_START", -1)  # Python 3.12 splits f-strings up
    fstring_end = getattr(tokenize, "FSTRING_END", -1)
    depth = 0
    for item in tokenize.generate_tokens(io.StringIO(text).readline):
        kind, string, line = item.type, item.string, item.start[0]
        if kind == fstring_start:
            if depth == 0:
                yield Token(STRING, line)
            depth += 1
        elif kind == fstring_end:
            depth -= 1
        elif depth:
            continue
        elif kind == tokenize.NAME:
            yield Token(_python_name(string), line)
        elif kind == tokenize.NUMBER:
            yield Token(NUMBER, line)
        elif kind == tokenize.STRING:
            yield Token(STRING, line)
        elif kind in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
            yield Token(_BOUNDARY, line)
        elif kind == tokenize.OP or (kind == tokenize.ERRORTOKEN and not string.isspace()):
            yield Token(string, line)


def _python_regex_tokens(text: str) -> Iterator[Token]:
    """Raw tokens as ``_python_tokens`` gives them, by regular expressions (for any text)."""
    line, position, depth, end = 1, 0, 0, len(text)
    while position < end:
        match = _PY_TOKEN.match(text, position)
        if match is None:  # a lone quote or a character Python has no use for: one symbol, as tokenize
            char = text[position]
            if not char.isspace():
                yield Token(char, line)
            position += 1
            continue
        kind, token = match.lastgroup, match.group()
        if kind == "newline":
            if depth <= 0:
                yield Token(_BOUNDARY, line)
        elif kind == "number":
            yield Token(NUMBER, line)
        elif kind == "string":
            yield Token(STRING, line)
        elif kind == "name":
            yield Token(_python_name(token) if token[0].isidentifier() else token, line)
        elif kind == "op":
            depth += (token in "([{") - (token in ")]}")
            yield Token(token, line)
        line += token.count("\n")
        position = match.end()
    yield Token(_BOUNDARY, line)


def _drop_docstrings(raw: Sequence[Token]) -> list[Token]:
    """The tokens without statement boundaries and without strings that are a statement on their own
    (docstrings, and strings used as comments)."""
    kept: list[Token] = []
    index, count = 0, len(raw)
    at_start = True
    while index < count:
        token = raw[index]
        if token.symbol == _BOUNDARY:
            at_start = True
            index += 1
            continue
        if token.symbol == STRING and at_start:
            after = index
            while after < count and raw[after].symbol == STRING:
                after += 1
            if after == count or raw[after].symbol in (_BOUNDARY, ";"):
                index = after
                continue
        kept.append(token)
        at_start = token.symbol == ";"
        index += 1
    return kept


# --- other languages ------------------------------------------------------------------------------

_C_OPERATORS = sorted((
    ">>>= <<= >>= >>> ... -> ++ -- << >> <= >= == != && || += -= *= /= %= &= |= ^= :: => ?? ?. ** === !== "
    "+ - * / % & | ^ ! ~ < > = ? : ; , . ( ) [ ] { } # @"
).split(), key=len, reverse=True)
_C_TOKEN = re.compile(
    r"(?P<space>\s+|//[^\n]*|/\*.*?(?:\*/|\Z)|\#[ \t]*!.*?$)"
    r"|(?P<string>\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*(?:`|\Z))"
    r"|(?P<number>\.?[0-9](?:[eEpP][+-]|[\w.])*)"
    r"|(?P<name>[A-Za-z_$][\w$]*)"
    rf"|(?P<op>{'|'.join(map(re.escape, _C_OPERATORS))})",
    re.DOTALL | re.MULTILINE)


def _c_like_tokens(text: str) -> list[Token]:
    """Tokens of C, C++, Java, JavaScript and their kind: ``//`` and ``/* */`` comments dropped."""
    found: list[Token] = []
    line, position, end = 1, 0, len(text)
    while position < end:
        match = _C_TOKEN.match(text, position)
        if match is None:
            char = text[position]
            if not char.isspace():
                found.append(Token(char, line))
            position += 1
            continue
        kind, token = match.lastgroup, match.group()
        if kind == "string":
            found.append(Token(STRING, line))
        elif kind == "number":
            found.append(Token(NUMBER, line))
        elif kind == "name":
            found.append(Token(token if token in C_KEYWORDS else VARIABLE, line))
        elif kind == "op":
            found.append(Token(token, line))
        line += token.count("\n")
        position = match.end()
    return found


# --- fingerprints ---------------------------------------------------------------------------------

class Span(NamedTuple):
    """Lines of one file of a submission."""

    file: str
    """The file's path inside the submission folder, with ``/``."""
    first: int
    last: int


@dataclass(frozen=True)
class Fingerprint:
    """A submission's winnowed k-gram hashes, each with where it occurs."""

    files: tuple[str, ...]
    """The files fingerprinted, by relative path, in the order read."""
    hashes: Mapping[int, tuple[Span, ...]]
    """Each kept hash (64 bits) with the lines of every k-gram that has it."""
    tokens: int
    """Normalised tokens in all those files."""
    skipped: tuple[tuple[str, str], ...] = ()
    """Files left out or cut, each with why: ``binary``, ``not a regular file``, ``cut at the size cap``."""


def kgram_hash(symbols: Sequence[str]) -> int:
    """A k-gram's hash: the same on every machine and in every run (blake2b, not ``hash()``)."""
    digest = hashlib.blake2b("\x1f".join(symbols).encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def winnow(hashes: Sequence[int], window: int = W) -> list[int]:
    """The indices winnowing keeps: the rightmost smallest hash of every window of ``window``
    consecutive hashes, each index once ("robust winnowing"); one index for a shorter sequence."""
    if not hashes:
        return []
    if len(hashes) <= window:
        smallest = min(hashes)
        return [len(hashes) - 1 - hashes[::-1].index(smallest)]
    kept: list[int] = []
    last = -1
    for start in range(len(hashes) - window + 1):
        part = hashes[start:start + window]
        smallest = min(part)
        chosen = start + window - 1 - part[::-1].index(smallest)
        if chosen != last:
            kept.append(chosen)
            last = chosen
    return kept


def fingerprint_tokens(files: Sequence[tuple[str, Sequence[Token]]]) -> Fingerprint:
    """The fingerprint of files already tokenized: (relative path, tokens), in order.

    k-grams never span two files, and each file is winnowed on its own."""
    hashes: dict[int, list[Span]] = defaultdict(list)
    total = 0
    for name, tokens in files:
        total += len(tokens)
        symbols = [token.symbol for token in tokens]
        grams = [kgram_hash(symbols[i:i + K]) for i in range(len(tokens) - K + 1)]
        for index in winnow(grams):
            span = Span(name, tokens[index].line, tokens[index + K - 1].line)
            places = hashes[grams[index]]
            if span not in places:
                places.append(span)
    return Fingerprint(tuple(name for name, _ in files), {h: tuple(spans) for h, spans in hashes.items()}, total)


def fingerprint_folder(folder: Path, max_bytes: int = MAX_BYTES) -> Fingerprint:
    """The fingerprint of a submission folder: every regular source file (``SOURCE_SUFFIXES``) under
    it, by relative path, read as UTF-8 with undecodable bytes replaced.

    Links are never followed; files with a NUL byte are binary and left out; at most ``max_bytes`` are
    read in all (the file that crosses the cap is cut there, the rest left out). Never raises for what
    the folder holds; an empty or unreadable folder gives an empty fingerprint."""
    files: list[tuple[str, Sequence[Token]]] = []
    skipped: list[tuple[str, str]] = []
    budget = max_bytes
    for relative, path in _source_files(folder):
        if budget <= 0:
            skipped.append((relative, "over the size cap"))
            continue
        data = _read_regular(path, budget + 1)
        if data is None:
            skipped.append((relative, "not a regular file"))
            continue
        if b"\0" in data:
            skipped.append((relative, "binary"))
            continue
        if len(data) > budget:
            data = data[:budget]
            skipped.append((relative, "cut at the size cap"))
        budget -= len(data)
        text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
        suffix = Path(relative).suffix.lower() or ".py"  # no suffix: a python script (_source_files)
        files.append((relative, normalised_tokens(text, suffix)))
    fingerprint = fingerprint_tokens(files)
    return Fingerprint(fingerprint.files, fingerprint.hashes, fingerprint.tokens, tuple(skipped))


def _source_files(folder: Path) -> list[tuple[str, Path]]:
    """(relative path with ``/``, path) of every source file under ``folder``, sorted, links not followed."""
    found: list[tuple[str, Path]] = []
    for top, folders, names in os.walk(folder, followlinks=False):
        folders[:] = [name for name in folders if not name.startswith(".") and name not in SKIPPED_FOLDERS]
        for name in names:
            path = Path(top, name)
            if name.startswith(".") or not _is_source(path):
                continue
            found.append((path.relative_to(folder).as_posix(), path))
    return sorted(found)


def _is_source(path: Path) -> bool:
    suffix = path.suffix.lower()
    if suffix in SOURCE_SUFFIXES:
        return True
    if suffix:
        return False
    first = _read_regular(path, 128)
    return first is not None and first.startswith(b"#!") and b"python" in first.split(b"\n", 1)[0]


def _read_regular(path: Path, limit: int) -> bytes | None:
    """Up to ``limit`` bytes of ``path`` if it is a regular file (not a link, fifo or device), else None."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        with os.fdopen(descriptor, "rb", closefd=False) as stream:
            return stream.read(limit)
    except OSError:
        return None
    finally:
        os.close(descriptor)


# --- comparing sources ----------------------------------------------------------------------------

@dataclass(frozen=True)
class SourceMatch:
    """Two submissions' shared source, with the lines on each side for a side-by-side view."""

    a: str
    b: str
    score: float
    """``max(a_share, b_share)``: a near-copy inside a larger program scores as high as a whole copy
    (common code is dropped before, so a shared skeleton does not raise it)."""
    a_share: float
    """The share of a's fingerprints (common code dropped) found in b."""
    b_share: float
    shared: int
    """Fingerprints the two have in common (common code dropped)."""
    a_lines: tuple[Span, ...] = ()
    """The lines of a that match, ranges merged, by file and line."""
    b_lines: tuple[Span, ...] = ()


def compare(a: Fingerprint, b: Fingerprint, *, names: tuple[str, str] = ("", ""),
            ignore: frozenset[int] | set[int] = frozenset()) -> SourceMatch:
    """What ``a`` and ``b`` share, leaving out the hashes in ``ignore`` (common code) on both sides."""
    own_a = a.hashes.keys() - ignore
    own_b = b.hashes.keys() - ignore
    shared = own_a & own_b
    a_share = len(shared) / len(own_a) if own_a else 0.0
    b_share = len(shared) / len(own_b) if own_b else 0.0
    return SourceMatch(names[0], names[1], max(a_share, b_share), a_share, b_share, len(shared),
                       merge_spans(span for h in shared for span in a.hashes[h]),
                       merge_spans(span for h in shared for span in b.hashes[h]))


def merge_spans(spans: Iterable[Span]) -> tuple[Span, ...]:
    """Line ranges by file, overlapping or adjacent ones joined."""
    merged: list[Span] = []
    file, first, last = "", 0, -2
    for span in sorted(spans):
        if span.file == file and span.first <= last + 1:
            last = max(last, span.last)
            continue
        if file or last >= 0:
            merged.append(Span(file, first, last))
        file, first, last = span
    if file or last >= 0:
        merged.append(Span(file, first, last))
    return tuple(merged)


def common_hashes(prints: Mapping[str, Fingerprint], common_share: float,
                  base: Fingerprint | None = None) -> set[int]:
    """Hashes that are no evidence: those of ``base`` (the starter code), and those held by more than
    ``common_share`` of the submissions and by at least three (a pair alone is never "the class")."""
    holders = Counter(h for fingerprint in prints.values() for h in fingerprint.hashes)
    cut = max(2.0, common_share * len(prints))
    common = {h for h, count in holders.items() if count > cut}
    if base is not None:
        common |= base.hashes.keys()
    return common


def similar_sources(prints: Mapping[str, Fingerprint], threshold: float, common_share: float = 0.5, *,
                    base: Fingerprint | None = None, min_shared: int = 8) -> list[SourceMatch]:
    """Every pair of submissions whose ``score`` is at least ``threshold`` and that share at least
    ``min_shared`` fingerprints (a handful of lines is too little to look at), highest score first.

    Common code (``common_hashes``) is dropped first. Only pairs that share some fingerprint are
    compared, through an index from hash to submissions."""
    ignore = common_hashes(prints, common_share, base)
    owners: dict[int, list[str]] = defaultdict(list)
    own_counts: dict[str, int] = {}
    for name in sorted(prints):
        own = prints[name].hashes.keys() - ignore
        own_counts[name] = len(own)
        for h in own:
            owners[h].append(name)
    together: Counter[tuple[str, str]] = Counter()
    for names in owners.values():
        if len(names) > 1:
            together.update(combinations(names, 2))
    found = []
    for (a, b), count in together.items():
        if count >= min_shared and count / min(own_counts[a], own_counts[b]) >= threshold:
            found.append(compare(prints[a], prints[b], names=(a, b), ignore=ignore))
    return sorted(found, key=lambda match: (-match.score, -match.shared, match.a, match.b))


# --- moves ----------------------------------------------------------------------------------------

MIN_MOVES = 6
"""Legal moves a probe position has, at least (fewer only where the game's size allows no more)."""


def probe_positions(rules: Game, size: str, count: int, seed: int, min_moves: int = MIN_MOVES) -> list[Position]:
    """``count`` distinct positions of ``rules`` at ``size`` where programs usually differ, the same for
    the same arguments on every machine.

    Each is reached by random legal plies from the game's start (from a random start, as the game's
    tournaments and validator draw them, for a game without a fixed one), into the middle game: a
    quarter to a half of the empty cells filled, or 0 to 3 plies from a random start. It is kept when
    the game is not over, it has at least ``min_moves`` legal moves, the side to move has no win in
    one, and the other side threatens none (nothing to stop): tactics every sound program answers
    alike. After 200 draws in a row without a find, ``min_moves`` drops by one (a small board may
    never have that many)."""
    rng = Rng(seed)
    size = rules.parse_size(size)
    found: list[Position] = []
    keys: set[int] = set()
    misses, wanted = 0, min_moves
    while len(found) < count:
        position = _mid_game(rules, size, rng)
        if (position is not None and position.key() not in keys and len(position.legal_moves()) >= wanted
                and is_quiet(position)):
            keys.add(position.key())
            found.append(position)
            misses = 0
            continue
        misses += 1
        if misses >= 200:
            if wanted <= 1:
                break  # the game at this size has no such position
            wanted, misses = wanted - 1, 0
    return found


def _mid_game(rules: Game, size: str, rng: Rng) -> Position | None:
    """A position some random plies into a game, or None when the game ended on the way."""
    position = rules.random_start(size, rng)
    if position is None:
        position = rules.initial(size)
        empty = position.board().count(".")
        low = max(4, empty // 4)
        plies = low + rng.randrange(max(1, empty // 2 - low + 1))
    else:
        plies = rng.randrange(4)
    for _ in range(plies):
        moves = position.legal_moves()
        if not moves or position.winner() is not None:
            return None
        position.push(rng.choice(moves))
    if position.winner() is not None or rules.end_reason(position) is not None or not position.legal_moves():
        return None
    return position


def wins_in_one(position: Position) -> bool:
    """Whether the side to move has a move that wins at once (the game's own test)."""
    return position.has_winning_move()


def is_quiet(position: Position) -> bool:
    """Whether neither side could win at once: no win in one for the side to move, and none for the
    other side if it were its turn (a threat the side to move would have to stop)."""
    if wins_in_one(position):
        return False
    other = position.copy()
    other.turn ^= 1  # the same board, the other side to move
    return not wins_in_one(other)


@dataclass(frozen=True)
class MoveMatch:
    """How often two programs chose the same move in the probe positions."""

    a: str
    b: str
    positions: int
    """Positions both answered (a move, not None)."""
    same: int
    """Of those, where both chose the same move."""
    share: float
    """``same / positions`` (0 when they share no position)."""
    expected: float
    """The agreement by chance: over the same positions, the mean share of all the class's pairs
    (among those that answered there) that chose the same move."""
    sigmas: float = field(default=0.0)
    """How far ``same`` is above chance, in standard deviations of the number of agreements if each
    position agreed with its class share independently (0 when chance leaves no doubt)."""


def move_agreement(answers: Mapping[str, Sequence[int | None]]) -> list[MoveMatch]:
    """Every pair of students (by name), with their agreement over the positions both answered.

    ``answers[name][i]`` is the move the program chose in position ``i`` (None: no valid answer)."""
    names = sorted(answers)
    length = max((len(moves) for moves in answers.values()), default=0)
    chance: list[float] = []
    for index in range(length):
        chosen = [moves[index] for moves in answers.values() if index < len(moves) and moves[index] is not None]
        pairs = len(chosen) * (len(chosen) - 1) // 2
        agreeing = sum(n * (n - 1) // 2 for n in Counter(chosen).values())
        chance.append(agreeing / pairs if pairs else 0.0)
    found = []
    for a, b in combinations(names, 2):
        both = [i for i, (x, y) in enumerate(zip(answers[a], answers[b])) if x is not None and y is not None]
        same = sum(answers[a][i] == answers[b][i] for i in both)
        mean = sum(chance[i] for i in both)
        spread = math.sqrt(sum(chance[i] * (1 - chance[i]) for i in both))
        sigmas = (same - mean) / spread if spread > 0 else 0.0
        found.append(MoveMatch(a, b, len(both), same, same / len(both) if both else 0.0,
                               mean / len(both) if both else 0.0, sigmas))
    return found


def similar_moves(answers: Mapping[str, Sequence[int | None]], threshold: float = 0.9, minimum: int = 10,
                  sigmas: float = 3.0) -> list[MoveMatch]:
    """The pairs that answered at least ``minimum`` positions alike, agree in at least ``threshold`` of
    them, and ``sigmas`` standard deviations above chance (so a class that plays alike flags no one),
    highest share first."""
    found = [match for match in move_agreement(answers)
             if match.positions >= minimum and match.share >= threshold and match.sigmas >= sigmas]
    return sorted(found, key=lambda match: (-match.share, -match.sigmas, match.a, match.b))
