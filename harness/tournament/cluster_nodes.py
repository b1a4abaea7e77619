"""``arena cluster scheduler`` and ``arena cluster worker``: dask's scheduler and worker, run in this
process with the cluster's mutual TLS and explicit listen addresses.

In this process rather than as ``dask`` subprocesses: the security is the checked certificate set
with TLS required (no command-line flags to forget), every listening socket has an address chosen
here (``dask worker`` listens on all interfaces unless told otherwise, and its nanny and HTTP server
add ports of their own), there is no nanny (one process, one port: a supervisor such as systemd
restarts it), and every problem is one ``arena: error:`` line.
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import logging
import signal
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from harness.tournament.cluster import LOCAL_HOST, ClusterAddress, ClusterError, connect_seconds, is_loopback
from harness.tournament.cluster_certs import CertSet, security

if TYPE_CHECKING:
    from distributed import Security

DEFAULT_PORT = 8786
"""The scheduler's port unless --port says otherwise (dask's own default)."""
HTTP_ADDRESS = f"{LOCAL_HOST}:0"
"""Where the nodes' HTTP endpoint (health, metrics; no dashboard) listens: this machine only."""
_WILDCARDS = {"", "0.0.0.0", "::", "[::]", "*"}


def listen_host(host: str, option: str = "--host") -> str:
    """``host`` as a listen address (an IPv6 address without brackets); ClusterError for an address
    that listens on every interface."""
    value = host.strip()
    if value in _WILDCARDS:
        raise ClusterError(f"invalid {option} {host!r}: that listens on every interface; give the address of the "
                           f"interface the cluster uses (e.g. {option} 10.0.0.5), or {LOCAL_HOST} for this machine only")
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    try:
        if ipaddress.ip_address(value).is_unspecified:
            raise ClusterError(f"invalid {option} {host!r}: that listens on every interface; give the address of "
                               f"the interface the cluster uses")
    except ValueError:
        pass  # a host name: dask binds the address it resolves to
    return value


def route_host(scheduler: ClusterAddress) -> str:
    """This machine's address on the way to the scheduler (127.0.0.1 for a loopback scheduler): a
    worker listens there unless told otherwise."""
    host = str(scheduler.host)
    if is_loopback(host):
        return LOCAL_HOST if ":" not in host else "::1"
    try:
        family, kind, proto, _, target = socket.getaddrinfo(host, scheduler.port, type=socket.SOCK_DGRAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.connect(target)  # UDP: no packet is sent, the kernel only picks the route
            return str(probe.getsockname()[0])
    except OSError as error:
        raise ClusterError(f"cannot find this machine's address towards {scheduler} ({error.strerror or error}); "
                           f"give the address to listen on with --host") from None


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _os_error(error: BaseException) -> str:
    """The OSError behind ``error`` (dask raises its own RuntimeError from it), in words."""
    found = _listen_error(error)
    return found if found is not None else " ".join(str(error).split())


def _listen_error(error: BaseException) -> str | None:
    """Why a socket could not be bound, if an OSError of listen() is behind ``error``."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in (errno.EADDRINUSE, errno.EADDRNOTAVAIL, errno.EACCES):
            return seen.strerror or str(seen)
        seen = seen.__cause__ or seen.__context__
    return None


async def _until_stopped(*finished: Any) -> None:
    """Wait for SIGINT or SIGTERM, or for any of ``finished`` (awaitables) to end."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    waits = [asyncio.ensure_future(stop.wait()), *(asyncio.ensure_future(item) for item in finished)]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()


def _quiet() -> None:
    logging.getLogger("distributed").setLevel(logging.WARNING)


def run_scheduler(certs: CertSet, host: str, port: int, ready: Callable[[str, str], None]) -> None:
    """Run dask's scheduler at ``tls://HOST:PORT`` until SIGINT or SIGTERM; ``ready(address, http)``
    is called once it listens (``port`` 0: a free port, named in ``address``)."""
    from distributed import Scheduler

    bind = listen_host(host)
    credentials = security(certs)

    async def serve() -> None:
        try:
            scheduler = await Scheduler(security=credentials, host=_url_host(bind), port=port, protocol="tls", dashboard=False,
                                        dashboard_address=HTTP_ADDRESS)
        except (OSError, RuntimeError) as error:  # dask wraps the OSError of listen() in "failed to start"
            raise ClusterError(f"cannot listen at tls://{_url_host(bind)}:{port} ({_os_error(error)}); give another "
                               f"--port, or the address of an interface of this machine as --host") from None
        try:
            ready(scheduler.address, f"http://{HTTP_ADDRESS.split(':')[0]}:{getattr(scheduler.http_server, 'port', 0)}")
            await _until_stopped(scheduler.finished())
        finally:
            await scheduler.close(reason="arena cluster scheduler stopped")

    _quiet()
    asyncio.run(serve())


def run_worker(scheduler: ClusterAddress, certs: CertSet, host: str | None, port: int, nthreads: int,
               ready: Callable[[str, str], None]) -> None:
    """Run a dask worker of ``nthreads`` game slots for the scheduler at ``scheduler`` (tls://),
    listening at ``host`` (default: this machine's address towards the scheduler) until SIGINT or
    SIGTERM; ``ready(address, http)`` is called once the scheduler has taken it in."""
    import dask
    from distributed import Worker

    if scheduler.scheme != "tls":
        raise ClusterError(f"invalid scheduler address {scheduler}: a worker joins a TLS scheduler, tls://HOST:PORT")
    bind = listen_host(host) if host is not None else route_host(scheduler)
    credentials: Security = security(certs)
    seconds = connect_seconds()

    async def serve() -> None:
        worker = Worker(scheduler.scheduler, security=credentials, host=_url_host(bind), port=port, protocol="tls",
                        nthreads=nthreads, dashboard=False, dashboard_address=HTTP_ADDRESS, nanny=None)
        dask_log = logging.getLogger("distributed")
        dask_log.setLevel(logging.CRITICAL)  # a failed start logs tracebacks of dask's own teardown: one line says why
        try:
            await asyncio.wait_for(worker, timeout=seconds + 2)  # it would wait for the scheduler for ever
        except (OSError, RuntimeError, asyncio.TimeoutError) as error:
            await worker.close(reason="arena cluster worker could not start", executor_wait=False)
            cause = _listen_error(error)
            if cause is not None:
                raise ClusterError(f"cannot listen at tls://{_url_host(bind)}:{port} ({cause}); give another --port, "
                                   f"or the address of an interface of this machine as --host") from None
            why = "" if isinstance(error, asyncio.TimeoutError) else f" ({' '.join(str(error).split())})"
            raise ClusterError(
                f"the worker could not join the scheduler at {scheduler} within {seconds:g} s{why}; check that "
                f"the scheduler runs there, that this machine may listen at {bind} (--host), and that the "
                f"certificates are the set the scheduler uses") from None
        finally:
            dask_log.setLevel(logging.WARNING)
        try:
            ready(worker.address, f"http://{HTTP_ADDRESS.split(':')[0]}:{getattr(worker.http_server, 'port', 0)}")
            await _until_stopped(worker.finished())
        finally:
            await worker.close(reason="arena cluster worker stopped", executor_wait=False)

    _quiet()
    # The statistical profiler samples every thread every 10 ms: CPU the engines need.
    with dask.config.set({"distributed.worker.profile.enabled": False}):
        asyncio.run(serve())
