"""The gateway's signing keys: Ed25519 keys by id, loaded from SIGNING_KEYS_DIR.

Layout of the directory: one PEM file per key (PKCS#8 private key), the key id is the file
stem (`2026-11.pem` -> "2026-11"); a file named `active` holds the id of the key that signs new
receipts and tokens, else the lexicographically last id signs. Retired keys stay in the
directory so old receipts and tokens still verify; a `<id>.pub.pem` file (public key only)
keeps a key verifiable after its private half was destroyed. Every key's public half is
published (`public_keys`), so clients can verify receipts through a rotation.

The same keys derive the MAC keys that bind cached snapshots to their match (HKDF, per key
id): only gateway replicas, which hold the private keys, can make or check a snapshot MAC.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

_KEY_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
_MAC_INFO = b"guildhall-snapshot-mac-v1"


class KeyRingError(ValueError):
    """The signing keys cannot be loaded (missing directory, bad PEM, no key, bad `active`)."""


@dataclass(frozen=True)
class PublicKey:
    """A published verification key: its id and the raw 32-byte Ed25519 public key."""

    key_id: str
    public_key: bytes


def _raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


class KeyRing:
    """Signs with the active key; verifies with any known key (private or public-only)."""

    def __init__(
        self,
        private_keys: Mapping[str, Ed25519PrivateKey],
        active: str | None = None,
        public_only: Mapping[str, Ed25519PublicKey] | None = None,
    ) -> None:
        if not private_keys:
            raise KeyRingError("a key ring needs at least one private key to sign with")
        for key_id in (*private_keys, *(public_only or {})):
            if not _KEY_ID.fullmatch(key_id):
                raise KeyRingError(f"key id {key_id!r} must match [A-Za-z0-9._-]{{1,64}}")
        self._private = dict(private_keys)
        self.active = active if active is not None else max(self._private)
        if self.active not in self._private:
            raise KeyRingError(f"the active key {self.active!r} has no private key in the ring")
        self._public: dict[str, Ed25519PublicKey] = {k: v.public_key() for k, v in self._private.items()}
        for key_id, public in (public_only or {}).items():
            self._public.setdefault(key_id, public)
        self._macs: dict[str, bytes] = {}

    @classmethod
    def generate(cls, key_id: str = "dev") -> KeyRing:
        """A fresh one-key ring (tests, a local stack): receipts verify only while it lives."""
        return cls({key_id: Ed25519PrivateKey.generate()})

    @classmethod
    def from_dir(cls, directory: str | Path) -> KeyRing:
        """Load SIGNING_KEYS_DIR (layout in the module docstring)."""
        root = Path(directory)
        if not root.is_dir():
            raise KeyRingError(f"SIGNING_KEYS_DIR {str(root)!r} is not a directory")
        private: dict[str, Ed25519PrivateKey] = {}
        public: dict[str, Ed25519PublicKey] = {}
        for path in sorted(root.iterdir()):
            if not path.is_file() or not path.name.endswith(".pem"):
                continue
            data = path.read_bytes()
            if path.name.endswith(".pub.pem"):
                loaded_public = serialization.load_pem_public_key(data)
                if not isinstance(loaded_public, Ed25519PublicKey):
                    raise KeyRingError(f"{path.name} is not an Ed25519 public key")
                public[path.name.removesuffix(".pub.pem")] = loaded_public
                continue
            try:
                loaded = serialization.load_pem_private_key(data, password=None)
            except (ValueError, TypeError) as error:
                raise KeyRingError(f"{path.name} is not an unencrypted PEM private key: {error}") from None
            if not isinstance(loaded, Ed25519PrivateKey):
                raise KeyRingError(f"{path.name} is not an Ed25519 private key")
            private[path.stem] = loaded
        if not private:
            raise KeyRingError(f"no Ed25519 private key (*.pem) in {str(root)!r}")
        active_file = root / "active"
        active = active_file.read_text().strip() if active_file.is_file() else None
        return cls(private, active, public)

    @staticmethod
    def write_new_key(directory: str | Path, key_id: str) -> Path:
        """Create `<key_id>.pem` (mode 0600) in `directory`: the tool for rotation."""
        if not _KEY_ID.fullmatch(key_id):
            raise KeyRingError(f"key id {key_id!r} must match [A-Za-z0-9._-]{{1,64}}")
        path = Path(directory) / f"{key_id}.pem"
        pem = Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "xb") as handle:  # never overwrite a key: old receipts depend on it
            path.chmod(0o600)
            handle.write(pem)
        return path

    def sign(self, message: bytes) -> tuple[str, bytes]:
        """(key id, signature) by the active key."""
        return self.active, self._private[self.active].sign(message)

    def verify(self, key_id: str, message: bytes, signature: bytes) -> bool:
        """Whether `signature` is key `key_id`'s over `message`; unknown keys verify nothing."""
        public = self._public.get(key_id)
        if public is None:
            return False
        try:
            public.verify(signature, message)
        except InvalidSignature:
            return False
        return True

    def public_keys(self) -> list[PublicKey]:
        """Every key's public half, by id (the active one included), sorted by id."""
        return [PublicKey(k, _raw_public(v)) for k, v in sorted(self._public.items())]

    def _mac_key(self, key_id: str) -> bytes | None:
        mac_key = self._macs.get(key_id)
        if mac_key is None:
            private = self._private.get(key_id)
            if private is None:
                return None
            raw = private.private_bytes(
                serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
            )
            mac_key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_MAC_INFO).derive(raw)
            self._macs[key_id] = mac_key
        return mac_key

    def mac(self, message: bytes) -> tuple[str, bytes]:
        """(key id, HMAC-SHA256) by the active key's MAC key: cheap enough for every append."""
        mac_key = self._mac_key(self.active)
        assert mac_key is not None  # the active key always has its private half
        return self.active, hmac.new(mac_key, message, hashlib.sha256).digest()

    def check_mac(self, key_id: str, message: bytes, tag: bytes) -> bool:
        mac_key = self._mac_key(key_id)
        if mac_key is None:
            return False
        return hmac.compare_digest(hmac.new(mac_key, message, hashlib.sha256).digest(), tag)
