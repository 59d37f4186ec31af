"""A table's signature on its records (docs/room.md, "Who can write a table's history").

The hash chain of ``hands`` proves order, not origin: anyone who can publish on a table's
topics (whoever controls the broker, or holds another client's password under a lax ACL) could
append a record with a valid hash. So each table has an Ed25519 key pair, made by ``tablectl room
enroll``: the private key stays on the table (a file of 64 hex digits, 0600, ``[room]
signing_key``), the public key goes in the floor's configuration (``[floor.tables]``). The table
signs every message on ``hands``, ``events/floor`` and ``events/dealer`` as it numbers it in its
outbox (room/outbox.py), over the message's canonical JSON without ``sig``; the floor flags a
record whose signature is missing or wrong.

>>> private, public = new_key_pair()
>>> signer = Signer(bytes.fromhex(private))
>>> body = {"type": "Alert", "code": "deck.foreign_card", "seq": 3}
>>> body["sig"] = signer.sign(body, "main/t7/events/floor")
>>> verify(public, body, "main/t7/events/floor"), verify(public, {**body, "code": "deck.clean"}, "main/t7/events/floor")
(True, False)
>>> verify(public, body, "main/t7/events/dealer"), verify(public, body, "main/t8/events/floor")  # not signed for there
(False, False)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

# (the key files' form is checked with the configuration: controller/config/keys.py)
from controller.config.keys import HEX, is_key as is_key, read_key_file
from controller.room.outbox import SIGNED  # noqa: E402,F401 (the topics signed)


def _signed_bytes(body: dict[str, Any], where: str) -> bytes:
    """What is signed: where the message goes (``room/table/topic``: a message signed for one
    topic does not verify on another) and its canonical JSON without ``sig``."""
    return where.encode() + b"\n" + json.dumps({k: v for k, v in body.items() if k != "sig"}, sort_keys=True,
                                               separators=(",", ":"), allow_nan=False).encode()


def new_key_pair() -> tuple[str, str]:
    """A new key pair: (the private key's 32 bytes, the public key's 32 bytes), each in hex."""
    key = Ed25519PrivateKey.generate()
    seed = key.private_bytes_raw()
    return seed.hex(), key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


class Signer:
    """A table's private key, signing message bodies."""

    def __init__(self, seed: bytes) -> None:
        self._key = Ed25519PrivateKey.from_private_bytes(seed)

    @classmethod
    def from_file(cls, path: str | Path) -> Signer:
        """The key in ``path`` (64 hex digits on the first line; the file the table's own, 0600).
        ValueError naming what is wrong."""
        return cls(read_key_file(path))

    def sign(self, body: dict[str, Any], where: str) -> str:
        """The signature of ``body`` published at ``where`` (``room/table/topic``)."""
        return self._key.sign(_signed_bytes(body, where)).hex()

    def public(self) -> str:
        return self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


def verify(public_hex: str, body: dict[str, Any], where: str) -> bool:
    """Whether ``body``, received at ``where`` (``room/table/topic``), carries a valid signature
    (``sig``) by the key ``public_hex``."""
    sig = body.get("sig")
    if not isinstance(sig, str) or len(sig) != 128 or not set(sig) <= HEX:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_hex)).verify(bytes.fromhex(sig),
                                                                            _signed_bytes(body, where))
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True
