"""``arena cluster certs|scheduler|worker``: a dask cluster that admits only its own (docs/cluster.md)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Optional

import typer

from harness.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from harness.tournament.cluster import ClusterAddress

CertsOption = Annotated[Path, typer.Option(
    "--certs", metavar="DIR", help="The cluster's certificate set (made by arena cluster certs DIR).")]


def parse_cluster_option(text: str, what: str = "--cluster") -> ClusterAddress:
    """A scheduler's address given on the command line (``what`` names the option or argument)."""
    from harness.tournament.cluster import parse_cluster

    try:
        return parse_cluster(text)
    except ValueError as error:
        raise UsageError(f"invalid {what}: {error}") from None


def certs_command(
    folder: Annotated[Path, typer.Argument(metavar="DIR", help="A new folder for the set (made 0700).")],
    force: Annotated[bool, typer.Option("--force", help="Replace a set already in DIR.")] = False,
) -> None:
    """Write a new certificate set for a cluster: a CA certificate, and the certificate and key every
    node presents. Copy the folder to every machine of the cluster."""
    from harness.tournament.cluster_certs import PURPOSES, write_certs

    made = write_certs(folder, force)
    typer.echo(f"wrote a cluster certificate set to {made.folder} (a folder only you can read):")
    width = max(len(str(path)) for path in (made.ca, made.cert, made.key))
    for path in (made.ca, made.cert, made.key):
        typer.echo(f"  {str(path):<{width}}  {PURPOSES[path.name]}")
    typer.echo("Copy the folder to every machine of the cluster (scheduler, workers, and where arena tournament runs), "
               "readable only by the user who runs arena there. The CA's private key is not kept: to shut a machine "
               "out, make a new set (--force) and copy it everywhere.")


def scheduler_command(
    certs: CertsOption,
    host: Annotated[str, typer.Option(help="The address to listen at: this machine's address on the cluster's "
                                           "network (never every interface).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="The port to listen at (0: any free port).")] = 8786,
) -> None:
    """Run a dask scheduler with mutual TLS: only holders of the set's certificate can join it or use it."""
    from harness.tournament.cluster_certs import check_certs
    from harness.tournament.cluster_nodes import run_scheduler

    checked = check_certs(certs, "--certs")

    def ready(address: str, http: str) -> None:
        typer.echo(f"scheduler listening at {address} (mutual TLS: certificates of {checked.folder})")
        typer.echo(f"HTTP endpoint (health, metrics) at {http}, this machine only")
        typer.echo(f"workers join with: arena cluster worker {address} --certs {checked.folder}")
        typer.echo("Ctrl-C stops it")

    run_scheduler(checked, host, port, ready)


def worker_command(
    address: Annotated[str, typer.Argument(help="The scheduler's address, tls://HOST:PORT.")],
    certs: CertsOption,
    host: Annotated[Optional[str], typer.Option(
        help="The address to listen at (default: this machine's address towards the scheduler; 127.0.0.1 for a "
             "scheduler on this machine).")] = None,
    port: Annotated[int, typer.Option(min=0, max=65535, help="The port to listen at (0: any free port).")] = 0,
    nthreads: Annotated[Optional[int], typer.Option(
        min=1, max=256, help="Games at once (default: the number of cores).")] = None,
) -> None:
    """Run a dask worker with mutual TLS that plays the games its scheduler hands out."""
    from harness.tournament.cluster_certs import check_certs
    from harness.tournament.cluster_nodes import run_worker

    scheduler = parse_cluster_option(address, "ADDRESS")
    checked = check_certs(certs, "--certs")
    slots = nthreads or os.cpu_count() or 1

    def ready(listening: str, http: str) -> None:
        typer.echo(f"worker listening at {listening} with {slots} slots, joined the scheduler at {scheduler}")
        typer.echo(f"HTTP endpoint (health, metrics) at {http}, this machine only")
        typer.echo("Ctrl-C stops it")

    run_worker(scheduler, checked, host, port, slots, ready)
