"""Certificates made by the test (``cryptography``, installed with asyncssh): a CA, and leaves it
signs for a nats-server on 127.0.0.1 and for its clients (mutual TLS)."""

from __future__ import annotations

import datetime
import ipaddress
import secrets
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from pioche_tui import bus
from pioche_tui.bus.natsd import NatsServer
from pioche_tui.bus.roles import ServerTLS, User


@dataclass(frozen=True)
class Pair:
    cert: Path
    key: Path


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _write(directory: Path, stem: str, cert: x509.Certificate,
           key: ec.EllipticCurvePrivateKey) -> Pair:
    directory.mkdir(parents=True, exist_ok=True)
    pair = Pair(directory / f"{stem}.pem", directory / f"{stem}-key.pem")
    pair.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pair.key.write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    pair.key.chmod(0o600)
    return pair


class CA:
    """A certificate authority of the test's, its certificate in ``directory/NAME.pem``."""

    def __init__(self, directory: Path, name: str = "pioche-test-ca") -> None:
        self.directory = directory
        self.key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        self.cert = (
            x509.CertificateBuilder().subject_name(_name(name)).issuer_name(_name(name))
            .public_key(self.key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(
                digital_signature=True, key_cert_sign=True, crl_sign=True,
                content_commitment=False, key_encipherment=False, data_encipherment=False,
                key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
            .sign(self.key, hashes.SHA256()))
        self.pair = _write(directory, name, self.cert, self.key)

    @property
    def path(self) -> Path:
        return self.pair.cert

    def issue(self, common: str, server: bool, route: bool = False) -> Pair:
        """A leaf for ``common``: a server's for 127.0.0.1 (its address in the certificate),
        or a client's; ``route``: a cluster node's, both (it accepts routes and opens them)."""
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        usages = [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH] if route \
            else [ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH]
        server = server or route
        builder = (
            x509.CertificateBuilder().subject_name(_name(common))
            .issuer_name(self.cert.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage(usages), critical=False))
        if server:
            builder = builder.add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        return _write(self.directory, common, builder.sign(self.key, hashes.SHA256()), key)


def mutual_tls_bus(ca: CA) -> NatsServer:
    """A nats-server (not started) with a certificate ``ca`` signed, asking each client for one
    of ``ca``'s (mutual TLS), and two users: ``core`` (coordinator) and ``paris`` (front)."""
    leaf = ca.issue("bus", server=True)
    return NatsServer(users=[User("core", bus.COORDINATOR, secrets.token_urlsafe(24)),
                             User("paris", bus.FRONT, secrets.token_urlsafe(24))],
                      tls=ServerTLS(leaf.cert, leaf.key, ca.path, verify=True))
