"""Where a tournament's games run, as a config value: a dask scheduler's address or a local cluster.

Parsed with the config (harness.tournament.config); harness.tournament.cluster connects to it. This
module imports neither dask nor the rest of the tournament, so a config is read without them.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

MAX_LOCAL_SLOTS = 256
"""Most worker slots of a ``local:K`` cluster (as many as ``concurrency`` allows)."""
LOCAL_HOST = "127.0.0.1"
_HOST = r"(?P<host>[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])"
_SCHEDULER = re.compile(rf"(?P<scheme>tcp|tls)://{_HOST}:(?P<port>[0-9]{{1,5}})")
_LOCAL = re.compile(r"local:(?P<slots>[0-9]{1,6})")
ADDRESS_HELP = (
    f"tls://HOST:PORT (a running dask scheduler with TLS), tcp://HOST:PORT (one without: loopback only, "
    f"unless --insecure-cluster) or local:K (a cluster of K worker slots on this machine, 1 to {MAX_LOCAL_SLOTS})"
)


@dataclass(frozen=True)
class ClusterAddress:
    """Where games run: a running scheduler (``tls://`` or ``tcp://HOST:PORT``) or a local cluster (``local:K``)."""

    scheduler: str | None = None
    """The scheduler's address, or None for a local cluster."""
    local_slots: int | None = None
    """Worker slots (games at once) of a local cluster."""

    def __str__(self) -> str:
        return self.scheduler if self.scheduler is not None else f"local:{self.local_slots}"

    @property
    def scheme(self) -> str:
        """``tls``, ``tcp`` or ``local``."""
        return "local" if self.scheduler is None else self.scheduler.split("://", 1)[0]

    @property
    def host(self) -> str | None:
        """The scheduler's host (an IPv6 address without brackets), or None for a local cluster."""
        if self.scheduler is None:
            return None
        host = self.scheduler.split("://", 1)[1].rsplit(":", 1)[0]
        return host[1:-1] if host.startswith("[") else host

    @property
    def port(self) -> int | None:
        return None if self.scheduler is None else int(self.scheduler.rsplit(":", 1)[1])


def parse_cluster(text: str) -> ClusterAddress:
    """``tls://HOST:PORT``, ``tcp://HOST:PORT`` or ``local:K``; ValueError (saying what is expected) otherwise."""
    value = text.strip()
    remote = _SCHEDULER.fullmatch(value)
    if remote is not None and 1 <= int(remote["port"]) <= 65535 and _valid_host(remote["host"]):
        return ClusterAddress(scheduler=value)
    local = _LOCAL.fullmatch(value)
    if local is not None and 1 <= int(local["slots"]) <= MAX_LOCAL_SLOTS:
        return ClusterAddress(local_slots=int(local["slots"]))
    raise ValueError(f"expected {ADDRESS_HELP}, got {text!r}")


def _valid_host(host: str) -> bool:
    if not host.startswith("["):
        return True
    try:
        return ipaddress.ip_address(host[1:-1]).version == 6
    except ValueError:
        return False


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) is this machine's loopback: ``localhost`` or 127.x, ::1."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
