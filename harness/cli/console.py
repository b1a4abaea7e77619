"""What every command prints and how it stops: safe lines, warnings, the one error line, interrupts."""

from __future__ import annotations

import signal
import threading

import typer

from harness.text import visible


def one_line(message: str) -> str:
    """A message as one line, whatever it quotes shown safely (harness.text.visible)."""
    return visible(" ".join(message.splitlines()))


def error_line(message: str) -> str:
    """The one line a refused command prints on stderr (and exits 2)."""
    return f"arena: error: {one_line(message)}"


def echo(text: str = "", err: bool = False, nl: bool = True, lines: bool = False) -> None:
    """Print one line, what it holds from programs, configs and files shown safely: controls and
    escape sequences as visible text; with ``lines``, a text of several lines (its newlines stay)."""
    typer.echo(visible(text, lines=lines), err=err, nl=nl)


def warn(message: str) -> None:
    typer.echo(f"arena: warning: {one_line(message)}", err=True)


STOPPED: dict[str, int] = {}
"""The signal that stopped this command ("signal") and whether the command said how it left its
work ("told"); main() then exits 128 + the signal's number: 130 for Ctrl-C, 143 for SIGTERM."""


def stopped(message: str) -> typer.Exit:
    """Tell how an interrupted command left its work (main() picks the exit status)."""
    echo(message, err=True, lines=True)
    STOPPED["told"] = 1
    return typer.Exit(130)


def stop_on_signals() -> dict[int, signal._HANDLER]:
    """Ctrl-C and SIGTERM stop a command the same way: this process's engines are killed and no
    more start, then KeyboardInterrupt unwinds the command (finished games kept, pool workers
    stopped, scratch folders removed at exit). Returns the handlers they replace."""
    STOPPED.clear()
    if threading.current_thread() is not threading.main_thread():
        return {}

    def stop(signum: int, frame: object) -> None:
        from harness.referee.referee import stop_calls

        STOPPED.setdefault("signal", signum)
        stop_calls()
        raise KeyboardInterrupt

    return {signum: signal.signal(signum, stop) for signum in (signal.SIGINT, signal.SIGTERM)}
