"""Who is calling, and what they may call: tenant API keys, seat and spectator tokens, THE scope table.

Credentials travel as `authorization: Bearer <credential>` call metadata.

- A tenant API key (`ghk_` + 43 url-safe characters) is stored only as its sha256 (TENANTS_FILE),
  so a leaked tenants file gives nobody a key. Several keys per tenant make rotation possible:
  add the new one, move clients over, drop the old one.
- A seat token (`ght1.<payload>.<signature>`) is minted by the gateway and signed with the
  KeyRing's active Ed25519 key; it names tenant, match, seat (or none: a spectator) and an
  expiry. It verifies against any published key, so a signing-key rotation does not log players
  out. Issue 39: it also names the API key that minted it (`k`, the first 64 bits of the key's
  sha256) and the tenant's incarnation (`g`, the tenant record's generation): revoking the key
  or deleting the tenant ends every token it minted, on every replica as soon as the registry
  change is applied there (an in-memory lookup per call, no Redis round trip). Tokens minted
  before these fields existed carry neither and are judged as before until they expire.

`python -m gateway.auth new-key` prints a fresh API key and the hash to put in TENANTS_FILE.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from gateway.domain.timers import BOT, MAX_TURN_SECONDS, POLICIES, RANDOM_ACTION
from gateway.webhooks.config import WebhookConfig, WebhookConfigError, parse_webhooks

# -- scopes and THE table ---------------------------------------------------------------------

TENANT = "tenant"  # an operator's app: creates tickets, matches and tables; reads its matches
AUDITOR = "auditor"  # reads raw streams and audits; changes nothing
SEAT = "seat"  # one player at one match
SPECTATOR = "spectator"  # the public view of one match
PUBLIC = "public"  # no credentials needed
# Issue 32: the one key a browser may hold (the web table's page). It lists the games, reads their
# data, opens private tables and claims seats with an invite code: nothing that reads or touches
# an existing match (the seat and spectator tokens it obtains do that, each for its own match).
PUBLISHABLE = "publishable"
# Platform-wide keys (the tenants file's "operators" section, issue 23), not a tenant's:
OPERATOR = "operator"  # lists and replays any tenant's webhook dead letters
BOTWORKER = "botworker"  # the platform's bot worker: leases bot seats and their tokens
ADMIN = "admin"  # issue 34: the admin API (gateway/admin/): tenants, keys, usage, offboarding, the log
# Issue 43: the admin plane's two roles. `admin` is the role "write" (every AdminService RPC);
# `admin_read` the role "read": ADMIN_READ_RPCS only (list, get, usage, the log).
ADMIN_READ = "admin_read"
ADMIN_ROLES = {"write": ADMIN, "read": ADMIN_READ}  # role -> the scope it grants
ADMIN_READ_RPCS = frozenset(
    {
        "GetTenant",
        "ListTenants",
        "ListApiKeys",
        "GetUsage",
        "ReconcileUsage",
        "ListAdminLog",
        "GetAdminLogCheckpoint",
        "VerifyAdminLog",
        "ListAdminKeys",
        "ListRules",  # issue 40
        "CheckRules",
    }
)

# What each scope may call: the one place this is decided (tests call every RPC with every scope).
SCOPES: Mapping[str, frozenset[str]] = {
    "ListGames": frozenset({TENANT, AUDITOR, SEAT, SPECTATOR, PUBLISHABLE}),
    "GetPublicKeys": frozenset({PUBLIC}),
    "CreateTicket": frozenset({TENANT}),
    "GetTicket": frozenset({TENANT}),
    "CancelTicket": frozenset({TENANT}),
    "WatchTicket": frozenset({TENANT}),
    "CreateMatch": frozenset({TENANT}),
    "CreateTable": frozenset({TENANT, PUBLISHABLE}),  # tables are private; metered per key
    "ClaimSeat": frozenset({TENANT, PUBLISHABLE}),  # needs the table's invite code
    "ResumeSeat": frozenset({TENANT, PUBLISHABLE}),  # needs the seat's resume secret (issue 39)
    "IssueToken": frozenset({TENANT}),
    "ListMatches": frozenset({TENANT, AUDITOR}),
    "GetView": frozenset({SEAT, SPECTATOR, TENANT}),
    "SubmitAction": frozenset({SEAT}),
    "Resign": frozenset({SEAT}),
    "Undo": frozenset({SEAT}),
    "ReturnToSeat": frozenset({SEAT}),  # issue 41: "I'm back"
    "Watch": frozenset({SEAT, SPECTATOR, TENANT}),
    "Replay": frozenset({SEAT, SPECTATOR, TENANT, AUDITOR}),
    "Audit": frozenset({TENANT, AUDITOR}),
    "ReadEvents": frozenset({AUDITOR}),
    "ExportMatch": frozenset({AUDITOR}),
    "Play": frozenset({SEAT}),
    "GetGameData": frozenset({TENANT, AUDITOR, SEAT, SPECTATOR, PUBLISHABLE}),
    "GetRulesBundle": frozenset({TENANT, AUDITOR}),  # issue 40: what verifying a match offline needs
    # issue 23: ratings, webhook dead letters, platform bots
    "GetRatings": frozenset({TENANT}),
    "ListLeaderboard": frozenset({TENANT}),
    "ListDeadLetters": frozenset({OPERATOR}),
    "ReplayDeadLetters": frozenset({OPERATOR}),
    "ClaimBotSeats": frozenset({BOTWORKER}),
    "RenewBotSeats": frozenset({BOTWORKER}),
    "ReleaseBotSeats": frozenset({BOTWORKER}),
    # issue 34: guildhall.admin.v1.AdminService (gateway/api/admin.py), the operator plane
    **{
        rpc: frozenset({ADMIN})
        for rpc in (
            "CreateTenant",
            "UpdateTenant",
            "GetTenant",
            "ListTenants",
            "SuspendTenant",
            "ResumeTenant",
            "DeleteTenant",
            "CreateApiKey",
            "ListApiKeys",
            "RevokeApiKey",
            "GetUsage",
            "ListAdminLog",
            "GetAdminLogCheckpoint",  # issue 39
            "VerifyAdminLog",
            "RestoreTenant",
            # issue 40: rules versions side by side (ListRules and CheckRules are the read role's)
            "SetCurrentRules",
            "AddRulesTarget",
            "RemoveRulesTarget",
            "MoveMatch",
            "ReconcilePinnedMatches",
            "CreateAdminKey",  # issue 43: admin keys at runtime
            "RevokeAdminKey",
        )
    },  # fmt: skip
    **{rpc: frozenset({ADMIN, ADMIN_READ}) for rpc in ADMIN_READ_RPCS},  # issue 43: the read role's
}
KEY_SCOPES = frozenset({TENANT, AUDITOR, PUBLISHABLE})  # the scopes an API key may be given


def check_key_scopes(scopes: object) -> str | None:
    """Why a tenant key cannot have these scopes, or None: a non-empty list of KEY_SCOPES, and a
    publishable key has that scope alone (it is handed to browsers: it must not grow a secret's
    rights by being listed beside one)."""
    if not isinstance(scopes, list | tuple | set | frozenset) or not scopes or not set(scopes) <= KEY_SCOPES:
        return f"scopes must be a non-empty list of {sorted(KEY_SCOPES)}"
    if PUBLISHABLE in scopes and len(set(scopes)) > 1:
        return "a publishable key has the scope publishable alone"
    return None


OPERATOR_SCOPES = frozenset({OPERATOR, BOTWORKER, ADMIN, ADMIN_READ})  # the scopes of an operators' key

API_KEY_PREFIX = "ghk_"
TOKEN_PREFIX = "ght1."
KEY_PRINT_HEX = 16  # a token names its minting key by the first 64 bits of the key's sha256
DEFAULT_TOKEN_TTL_S = 24 * 3600
# Signed bytes start with a domain tag, so a token signature can never pass as a receipt's.
_TOKEN_DOMAIN = b"guildhall-token-v1\x1f"
_MAX_CREDENTIAL_CHARS = 1024
_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
# Where a token came from, signed into it (issue 39): what the holder may do depends on it.
BY_PUBLISHABLE = "pk"  # minted for a browser's publishable key: its own stream budget
BY_BOTWORKER = "bot"  # minted for the platform's bot worker: plays bot and away seats only
_ORIGINS = ("", BY_PUBLISHABLE, BY_BOTWORKER)
# Verified tokens are remembered (Ed25519 verification costs ~100 us; a player sends many calls).
_VERIFIED_CACHE = 50_000


class AuthError(Exception):
    """A call refused for its credentials: UNAUTHENTICATED or PERMISSION_DENIED."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def unauthenticated(message: str) -> AuthError:
    return AuthError(grpc.StatusCode.UNAUTHENTICATED, message)


def denied(message: str) -> AuthError:
    return AuthError(grpc.StatusCode.PERMISSION_DENIED, message)


# -- tenants ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Quotas:
    open_tickets: int = 1000
    active_matches: int = 500
    actions_per_second: float = 200.0
    reads_per_second: float = 2000.0
    # Issue 32: private tables a publishable key (a browser's) may open per minute, all its
    # visitors together (a burst of a minute's worth) ...
    tables_per_minute: float = 60.0
    # ... and (issue 39) one client address (an IPv6 /64): one visitor cannot drain the key's.
    tables_per_minute_per_address: float = 6.0
    # Issue 39: web tables (opened with a publishable key) in play at once, counted apart from
    # active_matches: a page key handed to every browser cannot refuse the backend's matches.
    web_tables: int = 200


@dataclass(frozen=True)
class TurnTimerDefault:
    seconds: int = 0  # 0: no timer
    policy: str = RANDOM_ACTION


@dataclass(frozen=True)
class TableDefaults:
    """Issue 39/41: web tables, the ones opened with a publishable key."""

    # A web table whose seats are not all claimed this long after it opened closes.
    unclaimed_seconds: int = 1800
    # Its turn timer when it asks for none: an absent player's seat goes to the platform's bot.
    turn_timer: TurnTimerDefault = field(default_factory=lambda: TurnTimerDefault(120, BOT))


@dataclass(frozen=True)
class ApiKey:
    tenant: str
    key_id: str
    sha256: str
    scopes: frozenset[str]
    expires_ms: int = 0  # issue 43: refused from this time on (0: no expiry)

    @property
    def key_print(self) -> str:
        """What a token minted with this key names it by (the key's id may be reused later)."""
        return self.sha256[:KEY_PRINT_HEX]


@dataclass(frozen=True)
class Tenant:
    tenant_id: str
    keys: tuple[ApiKey, ...]
    quotas: Quotas = field(default_factory=Quotas)
    turn_timer: TurnTimerDefault = field(default_factory=TurnTimerDefault)
    webhooks: WebhookConfig | None = None  # issue 23: where and what to deliver, if anywhere
    bot_wait_s: float = 30.0  # a ticket asking for bots without a wait of its own waits this long
    suspended: bool = False  # issue 34: every key and token of the tenant refused (gateway/admin/)
    tables: TableDefaults = field(default_factory=TableDefaults)
    # Issue 39: this incarnation of the tenant id (gateway/admin/registry.py); tokens carry it, so
    # a tenant created again under a deleted one's id never accepts the old tenant's tokens.
    generation: str = ""
    offboarding: bool = False  # issue 39: being deleted (gateway/admin/offboard.py); suspended too


class TenantsError(ValueError):
    """TENANTS_FILE does not follow its schema; the message names the fault."""


def parse_tenants(document: object) -> dict[str, Tenant]:
    """Tenants from the TENANTS_FILE JSON document, validated; TenantsError names the first fault."""
    if not isinstance(document, dict) or not isinstance(document.get("tenants"), dict):
        raise TenantsError('the tenants file must be an object {"tenants": {<tenant id>: {...}}}')
    tenants: dict[str, Tenant] = {}
    seen_hashes: set[str] = set()
    for tenant_id, body in document["tenants"].items():
        where = f"tenant {tenant_id!r}"
        if not _ID.fullmatch(tenant_id):
            raise TenantsError(f"{where}: ids are 1-64 of A-Z a-z 0-9 . _ -")
        if not isinstance(body, dict):
            raise TenantsError(f"{where}: must be an object")
        unknown = set(body) - {"keys", "quotas", "turn_timer", "webhooks", "bots", "tables"}
        if unknown:
            raise TenantsError(f"{where}: unknown fields {sorted(unknown)}")
        keys = []
        for number, entry in enumerate(body.get("keys", [])):
            at = f"{where} key {number}"
            if not isinstance(entry, dict) or set(entry) - {"id", "sha256", "scopes"}:
                raise TenantsError(f"{at}: must be an object with id, sha256 and scopes")
            digest = str(entry.get("sha256", "")).lower()
            if not re.fullmatch(r"[0-9a-f]{64}", digest):
                raise TenantsError(f"{at}: sha256 must be 64 hex digits (python -m gateway.auth new-key)")
            if digest in seen_hashes:
                raise TenantsError(f"{at}: the same key hash is configured twice")
            seen_hashes.add(digest)
            scopes = entry.get("scopes", [TENANT])
            problem = check_key_scopes(scopes) if isinstance(scopes, list) else "scopes must be a list"
            if problem:
                raise TenantsError(f"{at}: {problem}")
            keys.append(ApiKey(tenant_id, str(entry.get("id", number)), digest, frozenset(scopes)))
        quotas = _parse_quotas(body.get("quotas", {}), where)
        timer = _parse_timer(body.get("turn_timer", {}), where)
        try:
            webhooks = parse_webhooks(body["webhooks"], where) if "webhooks" in body else None
        except WebhookConfigError as error:
            raise TenantsError(str(error)) from None
        bots = body.get("bots", {})
        wait = bots.get("ticket_wait_seconds", 30) if isinstance(bots, dict) else None
        if not isinstance(wait, int) or set(bots) - {"ticket_wait_seconds"} or not 1 <= wait <= 3600:
            raise TenantsError(f"{where}: bots takes ticket_wait_seconds, an integer from 1 to 3600")
        tables = _parse_tables(body.get("tables", {}), where)
        tenants[tenant_id] = Tenant(
            tenant_id, tuple(keys), quotas, timer, webhooks, float(wait), tables=tables
        )
    return tenants


def parse_operators(document: object) -> tuple[ApiKey, ...]:
    """The platform-wide keys of the tenants file's `"operators": {"keys": [...]}` (issue 23):
    scopes `operator` (webhook dead letters of any tenant) and `botworker` (the bot worker)."""
    body = document.get("operators", {}) if isinstance(document, dict) else {}
    if not isinstance(body, dict) or set(body) - {"keys"} or not isinstance(body.get("keys", []), list):
        raise TenantsError('operators must be an object {"keys": [...]}')
    keys = []
    for number, entry in enumerate(body.get("keys", [])):
        at = f"operator key {number}"
        if not isinstance(entry, dict) or set(entry) - {"id", "sha256", "scopes", "expires_ms"}:
            raise TenantsError(f"{at}: must be an object with id, sha256, scopes (and expires_ms)")
        digest = str(entry.get("sha256", "")).lower()
        if not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise TenantsError(f"{at}: sha256 must be 64 hex digits (python -m gateway.auth new-key)")
        scopes = entry.get("scopes")
        if not isinstance(scopes, list) or not scopes or not set(scopes) <= OPERATOR_SCOPES:
            raise TenantsError(f"{at}: scopes must be a non-empty list of {sorted(OPERATOR_SCOPES)}")
        expires = entry.get("expires_ms", 0)
        if isinstance(expires, bool) or not isinstance(expires, int) or expires < 0:
            raise TenantsError(f"{at}: expires_ms must be a time in milliseconds since 1970 (0: none)")
        keys.append(ApiKey("", str(entry.get("id", number)), digest, frozenset(scopes), expires))
    return tuple(keys)


QUOTA_NAMES = tuple(Quotas.__dataclass_fields__)


def _parse_quotas(body: object, where: str) -> Quotas:
    if not isinstance(body, dict) or set(body) - set(QUOTA_NAMES):
        raise TenantsError(f"{where}: quotas take {', '.join(sorted(QUOTA_NAMES))}")
    values = {**Quotas().__dict__, **body}
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise TenantsError(f"{where}: quota {name} must be a positive number")
    defaults = Quotas()
    return Quotas(**{name: type(getattr(defaults, name))(values[name]) for name in QUOTA_NAMES})


def _parse_timer(
    body: object, where: str, default: TurnTimerDefault = TurnTimerDefault()
) -> TurnTimerDefault:
    if not isinstance(body, dict) or set(body) - {"seconds", "policy"}:
        raise TenantsError(f"{where}: turn_timer takes seconds and policy")
    seconds = body.get("seconds", default.seconds)
    policy = body.get("policy", default.policy)
    if isinstance(seconds, bool) or not isinstance(seconds, int) or not 0 <= seconds <= MAX_TURN_SECONDS:
        raise TenantsError(f"{where}: turn_timer seconds must be an integer from 0 to {MAX_TURN_SECONDS}")
    if policy not in POLICIES:
        raise TenantsError(f"{where}: turn_timer policy must be one of {POLICIES}")
    return TurnTimerDefault(seconds, policy)


def _parse_tables(body: object, where: str) -> TableDefaults:
    default = TableDefaults()
    if not isinstance(body, dict) or set(body) - {"unclaimed_seconds", "turn_timer"}:
        raise TenantsError(f"{where}: tables takes unclaimed_seconds and turn_timer")
    unclaimed = body.get("unclaimed_seconds", default.unclaimed_seconds)
    if (
        isinstance(unclaimed, bool)
        or not isinstance(unclaimed, int)
        or not 1 <= unclaimed <= MAX_TURN_SECONDS
    ):
        raise TenantsError(
            f"{where}: tables.unclaimed_seconds must be an integer from 1 to {MAX_TURN_SECONDS}"
        )
    # The tenant's own choice: MIN_WEB_TURN_SECONDS holds what a browser may ask for, not this.
    return TableDefaults(
        unclaimed, _parse_timer(body.get("turn_timer", {}), f"{where} tables", default.turn_timer)
    )


def load_tenants(path: str | Path) -> dict[str, Tenant]:
    return parse_tenants(_read_document(path))


def load_operators(path: str | Path) -> tuple[ApiKey, ...]:
    return parse_operators(_read_document(path))


def _read_document(path: str | Path) -> object:
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise TenantsError(f"cannot read the tenants file {str(path)!r}: {exc}") from None


def hash_key(api_key: str) -> str:
    return hashlib.sha256(api_key.encode()).hexdigest()


def new_api_key() -> str:
    """A fresh API key: 256 random bits, url-safe."""
    return API_KEY_PREFIX + secrets.token_urlsafe(32)


# -- principals ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Principal:
    """An authenticated caller. Tokens also bind a match and (for players) a seat."""

    tenant: str
    scopes: frozenset[str]
    key_id: str = ""  # the API key's id, for logs (a token's: the id of the signing key)
    match_id: str | None = None  # tokens only
    seat: int | None = None  # seat tokens only
    expires_at_ms: int = 0  # tokens only
    origin: str = ""  # tokens only: BY_PUBLISHABLE, BY_BOTWORKER or "" (a tenant's)
    key_print: str = ""  # an API key's print (ApiKey.key_print); a token's: its minting key's
    generation: str = ""  # tokens only: the tenant incarnation it was minted for

    @property
    def is_token(self) -> bool:
        return self.match_id is not None

    @property
    def by_bot(self) -> bool:
        return self.origin == BY_BOTWORKER

    @property
    def publishable(self) -> bool:
        """A publishable key, or a token minted for one (a browser's)."""
        return self.origin == BY_PUBLISHABLE or (PUBLISHABLE in self.scopes and TENANT not in self.scopes)


ANONYMOUS = Principal(tenant="", scopes=frozenset({PUBLIC}))


# -- tokens ---------------------------------------------------------------------------------

Sign = Callable[[bytes], tuple[str, bytes]]  # data -> (key id, signature)
Verify = Callable[[str, bytes, bytes], bool]  # key id, data, signature -> valid


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Tokens:
    """Mints and checks seat and spectator tokens with the gateway's signing keys."""

    def __init__(
        self,
        sign: Sign,
        verify: Verify,
        *,
        ttl_s: float = DEFAULT_TOKEN_TTL_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._sign = sign
        self._verify = verify
        self.ttl_s = ttl_s
        self._clock = clock
        self._verified: OrderedDict[str, Principal] = OrderedDict()

    def issue(
        self,
        tenant: str,
        match_id: str,
        seat: int | None,
        *,
        ttl_s: float | None = None,
        origin: str = "",
        key: str = "",
        generation: str = "",
    ) -> tuple[str, int]:
        """A token for one seat (or a spectator, seat None) of one match, minted by the API key
        whose print is `key` for the tenant incarnation `generation` (Authenticator.issue fills
        both in); returns it and its expiry. `origin` (BY_PUBLISHABLE, BY_BOTWORKER) is signed
        into it."""
        if origin not in _ORIGINS:
            raise ValueError(f"unknown token origin {origin!r}")
        expires = int((self._clock() + (self.ttl_s if ttl_s is None else ttl_s)) * 1000)
        body: dict[str, object] = {"t": tenant, "m": match_id, "s": seat, "exp": expires}
        if origin:
            body["o"] = origin
        if key:
            body["k"] = key
        if generation:
            body["g"] = generation
        payload = json.dumps(body, separators=(",", ":"), sort_keys=True).encode()
        key_id, signature = self._sign(_TOKEN_DOMAIN + payload)
        header = _b64(key_id.encode())
        return f"{TOKEN_PREFIX}{header}.{_b64(payload)}.{_b64(signature)}", expires

    def check(self, token: str) -> Principal:
        """The principal a token stands for; AuthError(UNAUTHENTICATED) if forged, malformed or expired."""
        principal = self._verified.get(token)
        if principal is None:
            principal = self._parse(token)
            self._verified[token] = principal
            if len(self._verified) > _VERIFIED_CACHE:
                self._verified.popitem(last=False)
        if principal.expires_at_ms <= self._clock() * 1000:
            raise unauthenticated("the token has expired; ask the tenant for a new one")
        return principal

    def _parse(self, token: str) -> Principal:
        parts = token[len(TOKEN_PREFIX) :].split(".")
        if len(parts) != 3:
            raise unauthenticated("malformed token")
        try:
            key_id = _unb64(parts[0]).decode()
            payload = _unb64(parts[1])
            signature = _unb64(parts[2])
        except (ValueError, UnicodeDecodeError):
            raise unauthenticated("malformed token") from None
        if not self._verify(key_id, _TOKEN_DOMAIN + payload, signature):
            raise unauthenticated("the token's signature does not verify")
        try:
            body = json.loads(payload)
            tenant, match_id, seat, expires = body["t"], body["m"], body["s"], body["exp"]
            origin = body.get("o", "")
            minted_by, generation = body.get("k", ""), body.get("g", "")
        except (ValueError, KeyError, TypeError, AttributeError):
            raise unauthenticated("malformed token") from None
        texts = (tenant, match_id, minted_by, generation)
        if not (all(isinstance(text, str) for text in texts) and isinstance(expires, int)):
            raise unauthenticated("malformed token")
        if origin not in _ORIGINS:
            raise unauthenticated("malformed token")
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)):
            raise unauthenticated("malformed token")
        scopes = frozenset({SEAT} if seat is not None else {SPECTATOR})
        return Principal(
            tenant, scopes, key_id=key_id, match_id=match_id, seat=seat, expires_at_ms=expires,
            origin=origin, key_print=minted_by, generation=generation,
        )  # fmt: skip


# -- the authenticator --------------------------------------------------------------------------


class Authenticator:
    """Turns call metadata into a Principal and applies THE scope table."""

    def __init__(
        self,
        tenants: Mapping[str, Tenant],
        tokens: Tokens,
        operators: Sequence[ApiKey] = (),
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.tenants = dict(tenants)
        self.tokens = tokens
        self._operators = tuple(operators)  # the tenants file's
        self._admin_keys: tuple[ApiKey, ...] = ()  # issue 43: created at runtime (gateway/admin/keys.py)
        self._clock = clock
        self._keys = self._key_table(self.tenants)
        self._prints = {key.key_print for key in self._keys.values()}

    def _key_table(self, tenants: Mapping[str, Tenant]) -> dict[str, ApiKey]:
        keys = {key.sha256: key for tenant in tenants.values() for key in tenant.keys}
        for key in (*self._operators, *self._admin_keys):  # platform-wide: no tenant, operator scopes
            if key.sha256 in keys:
                raise TenantsError(f"operator key {key.key_id!r}: the same key hash is configured twice")
            keys[key.sha256] = key
        return keys

    @property
    def operators(self) -> tuple[ApiKey, ...]:
        """The tenants file's platform keys (the admin keys made at runtime are apart)."""
        return self._operators

    def replace_admin_keys(self, keys: Sequence[ApiKey]) -> None:
        """Issue 43: the admin keys made at runtime, as the admin registry now has them; the next
        call is judged by them."""
        previous = self._admin_keys
        self._admin_keys = tuple(keys)
        try:
            table = self._key_table(self.tenants)
        except TenantsError:
            self._admin_keys = previous
            raise
        self._keys = table
        self._prints = {key.key_print for key in table.values()}

    def replace_tenants(self, tenants: Mapping[str, Tenant]) -> None:
        """Issue 34: the tenants as the admin registry now has them (gateway/admin/registry.py);
        the next call is judged by them. The dict is updated in place: its readers keep it."""
        keys = self._key_table(tenants)
        self.tenants.clear()
        self.tenants.update(tenants)
        self._keys = keys
        self._prints = {key.key_print for key in keys.values()}

    def issue(
        self,
        minter: Principal,
        match_id: str,
        seat: int | None,
        *,
        tenant: str | None = None,
        origin: str = "",
    ) -> tuple[str, int]:
        """A seat (or spectator, seat None) token minted by `minter`, an API key's caller, for its
        own tenant (or `tenant`: the bot worker's platform key mints for the seat's tenant). It is
        bound to the minting key and to the tenant's incarnation, and says its `origin` (issue 39)."""
        tenant_id = minter.tenant if tenant is None else tenant
        owner = self.tenants.get(tenant_id)
        generation = owner.generation if owner is not None else ""
        return self.tokens.issue(
            tenant_id, match_id, seat, origin=origin, key=minter.key_print, generation=generation
        )

    def authenticate(self, metadata: Sequence[tuple[str, str | bytes]] | None, rpc: str) -> Principal:
        """The caller of `rpc`, allowed to call it; AuthError otherwise."""
        allowed = SCOPES.get(rpc)
        if allowed is None:  # a new RPC nobody put in the table: refuse, never default open
            raise denied(f"{rpc} is not in the scope table")
        if PUBLIC in allowed:
            return ANONYMOUS
        credential = _bearer(metadata)
        if credential.startswith(TOKEN_PREFIX):
            principal = self.tokens.check(credential)
            owner = self.tenants.get(principal.tenant)
            if owner is None:
                raise unauthenticated("the token's tenant is no longer configured")
            if principal.generation != owner.generation:
                raise unauthenticated(
                    "the token was issued to an earlier tenant of this id, since deleted; ask for a new one"
                )
            if principal.key_print and principal.key_print not in self._prints:
                raise unauthenticated("the API key that issued this token was revoked; ask for a new token")
        elif credential.startswith(API_KEY_PREFIX):
            key = self._keys.get(hash_key(credential))
            if key is None:
                raise unauthenticated("unknown API key")
            if key.expires_ms and self._clock() * 1000 >= key.expires_ms:
                when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(key.expires_ms / 1000))
                raise unauthenticated(f"the API key {key.key_id!r} expired at {when}; ask for a new one")
            principal = Principal(key.tenant, key.scopes, key_id=key.key_id, key_print=key.key_print)
            if key.tenant and key.tenant not in self.tenants:
                raise unauthenticated("unknown API key")
        else:
            raise unauthenticated("the credential is neither an API key (ghk_...) nor a token (ght1....)")
        tenant = self.tenants.get(principal.tenant)
        if tenant is not None and tenant.suspended:
            raise denied(f"tenant suspended: {principal.tenant!r} is suspended by the operator")
        if not principal.scopes & allowed:
            if ADMIN in allowed and ADMIN_READ in principal.scopes:  # issue 43: say the role
                raise denied(
                    f"{rpc} needs an admin key with the role write; the key {principal.key_id!r} "
                    "has the role read"
                )
            have = ", ".join(sorted(principal.scopes))
            raise denied(
                f"{rpc} needs one of the scopes {', '.join(sorted(allowed))}; this credential has {have}"
            )
        return principal

    def tenant(self, tenant_id: str) -> Tenant:
        return self.tenants[tenant_id]


def _bearer(metadata: Sequence[tuple[str, str | bytes]] | None) -> str:
    values = [value for key, value in (metadata or ()) if key == "authorization"]
    if not values:
        raise unauthenticated("no credentials: send metadata 'authorization: Bearer <API key or token>'")
    if len(values) > 1:
        raise unauthenticated("more than one authorization header")
    value = values[0]
    text = value.decode(errors="replace") if isinstance(value, bytes) else value
    scheme, _, credential = text.partition(" ")
    if scheme.lower() != "bearer" or not credential or len(credential) > _MAX_CREDENTIAL_CHARS:
        raise unauthenticated("the authorization header must be 'Bearer <API key or token>'")
    return credential.strip()


def for_match(principal: Principal, match_id: str) -> None:
    """A token acts on its own match only: another match of the same tenant is PERMISSION_DENIED."""
    if principal.match_id is not None and principal.match_id != match_id:
        raise denied("this token is for another match")


# -- the tool -----------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m gateway.auth new-key [--tenant T] [--id K] [--scopes tenant,auditor]`."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m gateway.auth", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    new = commands.add_parser("new-key", help="print a new API key and the entry for TENANTS_FILE")
    new.add_argument("--id", default="k1", help="the key's id (logs name it)")
    new.add_argument(
        "--scopes", default="tenant", help="comma-separated: tenant, auditor; or publishable alone"
    )
    args = parser.parse_args(argv)
    scopes = [s for s in args.scopes.split(",") if s]
    if not scopes or not (check_key_scopes(scopes) is None or set(scopes) <= OPERATOR_SCOPES):
        parser.error(
            f"scopes must be some of {sorted(KEY_SCOPES)} (publishable alone) or of {sorted(OPERATOR_SCOPES)}"
        )
    key = new_api_key()
    print(f"API key (give it to the tenant; it is not stored anywhere): {key}")
    where = "operators" if set(scopes) <= OPERATOR_SCOPES else "the tenant's"
    print(f"Entry for {where} keys in TENANTS_FILE:")
    print(json.dumps({"id": args.id, "sha256": hash_key(key), "scopes": scopes}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
