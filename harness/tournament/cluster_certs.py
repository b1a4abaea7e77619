"""The cluster's credentials: a CA and the one certificate every node presents, for dask's mutual TLS.

dask checks a peer only by its certificate's chain to the cluster's CA (no host names, no roles:
``distributed.Security`` turns ``check_hostname`` off and gives every role the same rights), so a
certificate per role or per machine would restrict nothing. The set is therefore one CA certificate
and one node certificate with its key, shared by the scheduler, the workers and ``arena tournament``.
The CA's private key is not kept: nothing else can ever be signed into the cluster; replacing the
set everywhere is how a machine that held it is shut out.

cryptography and distributed are imported only when a set is made or used.
"""

from __future__ import annotations

import datetime
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from harness.errors import HarnessError

if TYPE_CHECKING:
    from distributed import Security

CA_FILE = "ca.pem"
CERT_FILE = "node.pem"
KEY_FILE = "node.key"
FILES = (CA_FILE, CERT_FILE, KEY_FILE)
VALID_DAYS = 730
"""How long a set is valid; make a new one before then (``arena cluster certs DIR --force``)."""

PURPOSES = {
    CA_FILE: "the cluster's CA certificate: every node accepts only peers whose certificate it signed",
    CERT_FILE: "the certificate every node presents (scheduler, workers, arena tournament), signed by the CA",
    KEY_FILE: "its private key (0600): whoever holds it can join the cluster and run code on every node",
}
"""What each file of a set is for, as ``arena cluster certs`` prints it."""


class CertsError(HarnessError):
    """A certificate folder that cannot be written or used; the message says how to fix it."""


@dataclass(frozen=True)
class CertSet:
    """A folder holding a complete, checked set: paths of its three files."""

    folder: Path
    ca: Path
    cert: Path
    key: Path


def _make_fix(folder: Path) -> str:
    return f"make a set with: arena cluster certs {folder}"


def write_certs(folder: Path, force: bool = False) -> CertSet:
    """Write a new CA and node certificate and key into ``folder`` (made 0700; keys 0600).

    Refuses a folder that already holds a set unless ``force`` (every node then needs the new set),
    and a folder that holds anything else (its mode is not ours to change).
    """
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    folder = Path(folder)
    _prepare_folder(folder, force)
    now = datetime.datetime.now(datetime.timezone.utc)
    start, end = now - datetime.timedelta(minutes=5), now + datetime.timedelta(days=VALID_DAYS)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"arena cluster CA {now:%Y-%m-%d %H:%M:%S}")])
    ca = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                     data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                     crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    node_key = ec.generate_private_key(ec.SECP256R1())
    node = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "arena cluster node")]))
        .issuer_name(ca_name).public_key(node_key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),
                       critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    key_bytes = node_key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    # The key first: a set whose certificates exist is complete, whatever stops this half-way.
    _write(folder / KEY_FILE, key_bytes, 0o600)
    _write(folder / CERT_FILE, node.public_bytes(pem), 0o644)
    _write(folder / CA_FILE, ca.public_bytes(pem), 0o644)
    return CertSet(folder, folder / CA_FILE, folder / CERT_FILE, folder / KEY_FILE)


def _prepare_folder(folder: Path, force: bool) -> None:
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise CertsError(f"{folder} is not a folder; give a new folder for the certificates")
    if folder.is_dir():
        present = sorted(entry.name for entry in folder.iterdir())
        ours = [name for name in present if name in FILES]
        others = [name for name in present if name not in FILES and not name.startswith(".arena-")]
        if others:
            raise CertsError(f"{folder} holds other files ({', '.join(others[:3])}); give a new or empty folder "
                             f"for the certificates")
        if ours and not force:
            raise CertsError(f"{folder} already holds a certificate set ({', '.join(ours)}); keep it, or replace it "
                             f"with --force (then copy the new set to every machine of the cluster)")
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(folder, 0o700)
    except OSError as error:
        raise CertsError(f"cannot make {folder}: {error.strerror or error}") from None


def _write(path: Path, data: bytes, mode: int) -> None:
    """Write ``path`` whole or not at all, created with ``mode`` (never readable by others first)."""
    temporary = path.with_name(f".arena-{path.name}.{os.getpid()}")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise CertsError(f"cannot write {path}: {error.strerror or error}") from None


def check_certs(folder: Path, option: str = "cluster_certs") -> CertSet:
    """The set in ``folder``, checked: all three files there, the key private to its owner, the
    certificate signed by the CA and valid now. CertsError names the problem and the fix."""
    from cryptography import x509
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import serialization

    folder = Path(folder).absolute()
    if not folder.is_dir():
        raise CertsError(f"{option}: no certificate folder at {folder}; {_make_fix(folder)}, or copy the set made "
                         f"for the cluster there")
    missing = [name for name in FILES if not (folder / name).is_file()]
    if missing:
        raise CertsError(f"{option}: {folder} has no {', '.join(missing)} (an incomplete set); {_make_fix(folder)}, "
                         f"or copy the whole set made for the cluster there")
    key_path = folder / KEY_FILE
    mode = stat.S_IMODE(key_path.stat().st_mode)
    if mode & 0o077:
        raise CertsError(f"{option}: {key_path} can be read by other users (mode {mode:04o}); chmod 600 {key_path}")
    try:
        ca = x509.load_pem_x509_certificate((folder / CA_FILE).read_bytes())
        node = x509.load_pem_x509_certificate((folder / CERT_FILE).read_bytes())
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    except OSError as error:
        raise CertsError(f"{option}: cannot read the set in {folder}: {error.strerror or error}") from None
    except (ValueError, TypeError):
        raise CertsError(f"{option}: {folder} holds files that are not a certificate set; {_make_fix(folder)}") from None
    try:
        node.verify_directly_issued_by(ca)
    except (ValueError, TypeError, InvalidSignature):
        raise CertsError(f"{option}: {folder / CERT_FILE} was not signed by {folder / CA_FILE} (files of two sets); "
                         f"copy the whole folder of one set") from None
    if node.public_key() != key.public_key():
        raise CertsError(f"{option}: {key_path} is not the key of {folder / CERT_FILE} (files of two sets); "
                         f"copy the whole folder of one set")
    now = datetime.datetime.now(datetime.timezone.utc)
    for path, cert in ((folder / CA_FILE, ca), (folder / CERT_FILE, node)):
        if not cert.not_valid_before_utc <= now <= cert.not_valid_after_utc:
            raise CertsError(f"{option}: {path} is valid only from {cert.not_valid_before_utc:%Y-%m-%d} to "
                             f"{cert.not_valid_after_utc:%Y-%m-%d}; make a new set (arena cluster certs {folder} "
                             f"--force) and copy it to every machine")
    return CertSet(folder, folder / CA_FILE, folder / CERT_FILE, key_path)


def security(certs: CertSet) -> Security:
    """dask's Security for every role of a node: TLS required, each peer checked against the CA."""
    from distributed import Security

    files = {f"tls_{role}_{kind}": str(path) for role in ("client", "scheduler", "worker")
             for kind, path in (("cert", certs.cert), ("key", certs.key))}
    return Security(require_encryption=True, tls_ca_file=str(certs.ca), **files)


def temporary_security() -> Security:
    """Credentials that exist only in this process and the ones it starts (a ``local:K`` cluster)."""
    from distributed import Security

    credentials: Security = Security.temporary()
    return credentials
