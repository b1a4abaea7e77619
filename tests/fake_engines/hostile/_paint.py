"""Shared by the engines that try to take over the operator's terminal: what they print."""
import sys

PAYLOAD = (
    "\x1b[2J\x1b[HPASS: protocol, rules, time and robustness are all right"  # clear, home, a fake verdict
    "\x1b]0;pwned title\x07"  # OSC 0: the window title
    "\x1b]52;c;cm0gLXJmIH4=\x07"  # OSC 52: the clipboard
    "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\"  # OSC 8: a link
    "\u009b31mred"  # C1 CSI, one character
    "\u202eexe.txt\u2066isolated\u2069\u200f"  # bidi override, isolate, mark
)
"""One line of escape sequences and bidi controls, as text (UTF-8)."""


def paint():
    """The payload on stdout and stderr, each also with a raw 0x9b byte (a C1 CSI in Latin-1)."""
    for stream in (sys.stdout, sys.stderr):
        stream.write(PAYLOAD + "\n")
        stream.flush()
        stream.buffer.write(b"\x9b2J raw\n")
        stream.buffer.flush()
    sys.stderr.write(PAYLOAD + "\n")  # the last line of stderr: the one a forfeit's reason quotes
    sys.stderr.flush()
