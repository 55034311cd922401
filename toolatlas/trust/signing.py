"""Signed exports: an atlas that travels says who published it, and any change to it shows.

``toolatlas keygen -o KEY`` writes an Ed25519 key pair (``KEY``, private, mode 0600, and
``KEY.pub``) as PEM. ``toolatlas export CONFIG --sign KEY`` adds a ``signature`` member to the
export: the algorithm, the fingerprint of the public key, and the signature (base64) over the
document's canonical form — every member but ``signature``, as JSON with sorted keys and no
whitespace (:func:`toolatlas.models.canonical_json`). ``--trust KEY.pub`` (repeatable) on ``guide``,
``serve`` and ``proxy``, and ``trusted=`` on :meth:`Atlas.from_export`, refuse a file that is unsigned,
signed by another key, or changed after signing, with an error that says which.

The cryptography is the ``cryptography`` package's (OpenSSL's Ed25519).
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from toolatlas.errors import TrustError
from toolatlas.models import canonical_json

__all__ = ["ALGORITHM", "fingerprint", "generate_keys", "sign_document", "verify_document"]

ALGORITHM = "ed25519"


def generate_keys(private: Path) -> tuple[Path, Path]:
    """Write a new key pair: ``private`` (PEM, PKCS#8, readable by its owner only) and ``private.pub``."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    public = private.with_name(private.name + ".pub")
    for path in (private, public):
        if path.exists():
            raise TrustError(f"{path} exists: keygen does not overwrite a key")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    private.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(private, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        out.write(pem)
    public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo))
    return private, public


def fingerprint(public: Any) -> str:
    """``sha256:<16 hex>`` of a public key's raw bytes: how a signature names its key."""
    from cryptography.hazmat.primitives import serialization

    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return "sha256:" + hashlib.sha256(raw).hexdigest()[:16]


def sign_document(document: dict[str, Any], private: Path) -> dict[str, Any]:
    """``document`` with its ``signature`` member (any earlier one replaced)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = _load(private, private=True)
    if not isinstance(key, Ed25519PrivateKey):
        raise TrustError(f"{private}: not an Ed25519 private key (make one with `toolatlas keygen`)")
    body = {name: value for name, value in document.items() if name != "signature"}
    value = key.sign(canonical_json(body).encode())
    signature = {"algorithm": ALGORITHM, "key": fingerprint(key.public_key()),
                 "value": base64.b64encode(value).decode()}
    return {**body, "signature": signature}


def verify_document(document: dict[str, Any], trusted: Iterable[Path], *, source: str = "the atlas") -> str:
    """The fingerprint of the trusted key that signed ``document``; a :class:`TrustError` saying
    why otherwise (unsigned, another key, changed after signing)."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    keys = {}
    for path in trusted:
        key = _load(path, private=False)
        if not isinstance(key, Ed25519PublicKey):
            raise TrustError(f"{path}: not an Ed25519 public key (the KEY.pub `toolatlas keygen` wrote)")
        keys[fingerprint(key)] = key
    signature = document.get("signature")
    if not isinstance(signature, dict):
        raise TrustError(f"{source} is not signed, and only atlases signed by {', '.join(keys)} are trusted")
    if signature.get("algorithm") != ALGORITHM:
        raise TrustError(f"{source}: signature algorithm {signature.get('algorithm')!r}, expected {ALGORITHM}")
    named = str(signature.get("key"))
    if named not in keys:
        raise TrustError(f"{source} is signed by key {named}, which is not trusted (trusted: {', '.join(keys)})")
    try:
        value = base64.b64decode(str(signature.get("value", "")), validate=True)
        body = {name: item for name, item in document.items() if name != "signature"}
        keys[named].verify(value, canonical_json(body).encode())
    except (InvalidSignature, ValueError):
        raise TrustError(f"{source}: the signature of key {named} does not match the content: "
                         "the file was changed after it was signed") from None
    return named


def _load(path: Path, *, private: bool) -> Any:
    from cryptography.hazmat.primitives import serialization

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TrustError(f"{path}: cannot read the key ({exc.strerror})") from None
    try:
        if private:
            return serialization.load_pem_private_key(data, password=None)
        return serialization.load_pem_public_key(data)
    except (ValueError, TypeError) as exc:
        raise TrustError(f"{path}: not a PEM {'private' if private else 'public'} key ({exc})") from None
