"""A systemd unit as systemd reads it, for ``tablectl doctor``: the unit file and its drop-ins
found and merged, and what the result lets the service do on the network (``PrivateNetwork=``,
``RestrictAddressFamilies=``, ``IPAddressAllow=`` and ``IPAddressDeny=``, systemd.resource-control(5)).

Everything is read under a root folder (``/`` on the Pi; a test's folder in the tests), so that
nothing here needs systemd or root. Parsing is pure; :func:`load_unit` is the one reader of files.

>>> unit = parse_unit("[Service]\\nIPAddressDeny=any\\nIPAddressAllow=192.0.2.10\\nIPAddressAllow=localhost\\n",
...                   "tablectl.service")
>>> firewall = Firewall.of(unit)
>>> firewall.allows("192.0.2.10"), firewall.allows("127.0.0.1"), firewall.allows("10.20.0.2")
(True, True, False)
"""

from __future__ import annotations

import ipaddress
import os
import shlex
import stat
from dataclasses import dataclass
from pathlib import Path

#: where systemd looks for system units, the first found winning (systemd.unit(5), "Unit File
#: Load Path"), relative to the root
SYSTEM_UNIT_DIRS = ("etc/systemd/system.control", "run/systemd/system.control", "run/systemd/transient",
                    "etc/systemd/system", "run/systemd/system", "usr/local/lib/systemd/system",
                    "usr/lib/systemd/system", "lib/systemd/system")
#: IPAddressAllow=/IPAddressDeny= keywords (systemd.resource-control(5))
KEYWORDS = {"any": ("0.0.0.0/0", "::/0"), "localhost": ("127.0.0.0/8", "::1/128"),
            "link-local": ("169.254.0.0/16", "fe80::/64"), "multicast": ("224.0.0.0/4", "ff00::/8")}
TRUE = ("1", "yes", "y", "true", "t", "on")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class Setting:
    """One ``Key=value`` line: its section, key and value, and the file it came from."""

    section: str
    key: str
    value: str
    source: str


@dataclass(frozen=True)
class Unit:
    """A unit merged from its file and drop-ins: every setting in the order systemd applies them."""

    path: str
    dropins: tuple[str, ...]
    settings: tuple[Setting, ...]

    def values(self, section: str, key: str) -> list[Setting]:
        """The settings of a list key that still count: an empty assignment resets the list.

        >>> u = parse_unit("[Service]\\nExecStart=/a\\nExecStart=\\nExecStart=/b x\\n", "u.service")
        >>> [s.value for s in u.values("Service", "ExecStart")]
        ['/b x']
        """
        out: list[Setting] = []
        for s in self.settings:
            if s.section == section and s.key == key:
                out = [] if not s.value else [*out, s]
        return out

    def last(self, section: str, key: str) -> Setting | None:
        """The setting of a one-value key that counts (the last), None if unset or reset."""
        found = self.values(section, key)
        return found[-1] if found else None

    def flag(self, section: str, key: str) -> bool:
        s = self.last(section, key)
        return s is not None and s.value.lower() in TRUE

    def words(self, section: str, key: str) -> list[str]:
        return [w for s in self.values(section, key) for w in s.value.split()]


def parse_unit(text: str, source: str) -> Unit:
    """One file's settings, in order (comments, ``\\``-continued lines, sections as systemd reads
    them; a line that is not ``Key=value`` is skipped, as systemd skips it with a warning)."""
    return Unit(source, (), tuple(_settings(text, source)))


def _settings(text: str, source: str) -> list[Setting]:
    out: list[Setting] = []
    section = ""
    pending = ""
    for raw in text.splitlines():
        line = (pending + raw.strip()) if pending else raw.strip()
        pending = ""
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            continue
        key, sep, value = line.partition("=")
        if sep and section:
            out.append(Setting(section, key.strip(), value.strip(), source))
    return out


# -- where systemd finds them ------------------------------------------------------------------

def in_root(root: Path, path: str | Path) -> Path:
    """``path`` (absolute, as the Pi names it) under ``root``.

    >>> in_root(Path("/tmp/r"), "/etc/x"), in_root(Path("/"), "/etc/x")
    (PosixPath('/tmp/r/etc/x'), PosixPath('/etc/x'))
    """
    return root / str(path).lstrip("/")


def resolve(root: Path, path: str | Path, *, hops: int = 40) -> Path | None:
    """Follow ``path``'s symlinks as the kernel would with ``root`` as ``/`` (an absolute link
    target stays under ``root``); the path under ``root``, or None if a part of it is missing."""
    parts = [p for p in str(path).split("/") if p not in ("", ".")]
    done: list[str] = []
    while parts:
        part = parts.pop(0)
        if part == "..":
            if done:
                done.pop()
            continue
        here = in_root(root, "/" + "/".join([*done, part]))
        try:
            st = os.lstat(here)
        except OSError:
            return None
        if stat.S_ISLNK(st.st_mode):
            hops -= 1
            if hops < 0:
                return None
            target = os.readlink(here)
            parts = [p for p in target.split("/") if p not in ("", ".")] + parts
            if target.startswith("/"):
                done = []
            continue
        done.append(part)
    return in_root(root, "/" + "/".join(done))


def find_unit(root: Path, name: str) -> Path | None:
    """The unit file systemd would load for ``name`` (under ``root``), or None."""
    for folder in SYSTEM_UNIT_DIRS:
        p = in_root(root, folder) / name
        if os.path.lexists(p):
            return p
    return None


def masked(root: Path, path: Path) -> bool:
    """Whether a unit file or drop-in is masked (a link to /dev/null, or empty)."""
    if path.is_symlink() and os.readlink(path) == "/dev/null":
        return True
    real = resolve(root, "/" + str(path.relative_to(root)))
    return real is not None and real.is_file() and real.stat().st_size == 0


def dropin_folders(name: str) -> list[str]:
    """The drop-in folder names systemd reads for unit ``name``: the unit type's own (``service.d``),
    each dash prefix's (``tablectl-.service.d`` for ``tablectl-floor.service``), then the unit's.

    >>> dropin_folders("tablectl-floor.service")
    ['service.d', 'tablectl-.service.d', 'tablectl-floor.service.d']
    """
    stem, _, kind = name.rpartition(".")
    pieces = stem.split("-")
    prefixes = ["-".join(pieces[:i]) + "-" for i in range(1, len(pieces))]
    return [f"{kind}.d", *(f"{p}.{kind}.d" for p in prefixes), f"{name}.d"]


def find_dropins(root: Path, name: str) -> list[Path]:
    """The drop-ins systemd applies to ``name``, in its order: every ``*.conf`` of the drop-in
    folders of every unit folder, one per file name (the folder of higher priority wins), sorted by
    file name; masked ones left out."""
    chosen: dict[str, Path] = {}
    for folder in SYSTEM_UNIT_DIRS:
        for sub in dropin_folders(name):
            d = in_root(root, folder) / sub
            if not d.is_dir():
                continue
            for f in sorted(d.iterdir()):
                if f.name.endswith(".conf") and f.name not in chosen:
                    chosen[f.name] = f
    return [chosen[n] for n in sorted(chosen) if not masked(root, chosen[n])]


def misplaced_dropins(root: Path, name: str) -> list[Path]:
    """Near misses a technician may have made that systemd ignores: a folder named like the
    unit's drop-in folder but not it (``tablectl.d``, ``tablectl.service.d.bak``), or a file in
    the drop-in folder not ending in ``.conf``."""
    stem = name.rpartition(".")[0]
    wanted = set(dropin_folders(name))
    out: list[Path] = []
    for folder in SYSTEM_UNIT_DIRS:
        d = in_root(root, folder)
        if not d.is_dir():
            continue
        for entry in sorted(d.iterdir()):
            if entry.name in wanted:
                out += [f for f in sorted(entry.iterdir()) if not f.name.endswith(".conf")] if entry.is_dir() else []
            elif entry.is_dir() and entry.name.startswith(stem + ".") and ".d" in entry.name:
                out.append(entry)
    seen: set[str] = set()  # (/lib is /usr/lib on a merged-/usr system: one folder seen twice is named once)
    return [p for p in out if not (os.path.realpath(p) in seen or seen.add(os.path.realpath(p)))]


def load_unit(root: Path, name: str) -> Unit | None:
    """The unit ``name`` under ``root`` with its drop-ins applied, or None if it is not installed
    (or masked). Paths in the result are as the Pi names them (``/etc/systemd/system/...``)."""
    path = find_unit(root, name)
    if path is None or masked(root, path):
        return None
    real = resolve(root, "/" + str(path.relative_to(root)))
    if real is None or not real.is_file():
        return None
    shown = _shown(root, path)
    settings = _settings(real.read_text(errors="replace"), shown)
    dropins = find_dropins(root, name)
    for d in dropins:
        settings += _settings(d.read_text(errors="replace"), _shown(root, d))
    return Unit(shown, tuple(_shown(root, d) for d in dropins), tuple(settings))


def _shown(root: Path, path: Path) -> str:
    return "/" + str(path.relative_to(root)) if root != Path("/") else str(path)


# -- what the unit runs ------------------------------------------------------------------------

def exec_start(unit: Unit) -> list[str] | None:
    """The command line of the unit's ``ExecStart=`` (its ``@-:+!`` prefixes dropped), or None.

    >>> u = parse_unit("[Service]\\nExecStart=-/opt/t/bin/tablectl run --config '/etc/t t.toml'\\n", "u")
    >>> exec_start(u)
    ['/opt/t/bin/tablectl', 'run', '--config', '/etc/t t.toml']
    """
    s = unit.last("Service", "ExecStart")
    if s is None:
        return None
    try:
        words = shlex.split(s.value)
    except ValueError:
        words = s.value.split()
    if not words:
        return None
    words[0] = words[0].lstrip("@-:+!")
    return words


def config_of(argv: list[str] | None) -> str | None:
    """The ``--config`` of a command line, if it has one.

    >>> config_of(["/x/tablectl", "run", "--config", "/etc/a.toml"]), config_of(["t", "--config=/b.toml"])
    ('/etc/a.toml', '/b.toml')
    """
    for i, word in enumerate(argv or []):
        if word == "--config" and argv is not None and i + 1 < len(argv):
            return argv[i + 1]
        if word.startswith("--config="):
            return word.split("=", 1)[1]
    return None


# -- the network it may use --------------------------------------------------------------------

def networks(words: list[str]) -> tuple[list[Network], list[str]]:
    """The networks an ``IPAddressAllow=``/``IPAddressDeny=`` list names, and the words that name
    none (systemd ignores them, with a warning).

    >>> nets, bad = networks(["localhost", "10.20.0.0/24", "broker.lan"])
    >>> [str(n) for n in nets], bad
    (['127.0.0.0/8', '::1/128', '10.20.0.0/24'], ['broker.lan'])
    """
    out: list[Network] = []
    bad: list[str] = []
    for word in words:
        for text in KEYWORDS.get(word.lower(), (word,)):
            try:
                out.append(ipaddress.ip_network(text, strict=False))
            except ValueError:
                bad.append(word)
    return out, bad


@dataclass(frozen=True)
class Firewall:
    """The unit's IP firewall: an address is allowed if ``IPAddressAllow=`` covers it, else
    denied if ``IPAddressDeny=`` does, else allowed (systemd.resource-control(5))."""

    allow: tuple[Network, ...]
    deny: tuple[Network, ...]
    allow_words: tuple[str, ...]
    ignored: tuple[str, ...]

    @classmethod
    def of(cls, unit: Unit) -> Firewall:
        allow_words = unit.words("Service", "IPAddressAllow")
        allow, bad_allow = networks(allow_words)
        deny, bad_deny = networks(unit.words("Service", "IPAddressDeny"))
        return cls(tuple(allow), tuple(deny), tuple(allow_words), tuple(bad_allow + bad_deny))

    def allows(self, address: str) -> bool:
        ip = ipaddress.ip_address(address)
        if any(ip.version == n.version and ip in n for n in self.allow):
            return True
        return not any(ip.version == n.version and ip in n for n in self.deny)


def address_families(unit: Unit) -> set[str] | None:
    """The address families ``RestrictAddressFamilies=`` leaves the service: None for all of them
    (the key unset), else the set allowed; a ``~`` list is a deny list (``{"~", ...}`` returned as
    the families denied, with ``"~"`` in the set).

    >>> sorted(address_families(parse_unit("[Service]\\nRestrictAddressFamilies=AF_UNIX\\n"
    ...                                    "RestrictAddressFamilies=AF_INET AF_INET6\\n", "u")))
    ['AF_INET', 'AF_INET6', 'AF_UNIX']
    >>> sorted(address_families(parse_unit("[Service]\\nRestrictAddressFamilies=~AF_INET6\\n", "u")))
    ['AF_INET6', '~']
    """
    allowed: set[str] | None = None
    denied: set[str] = set()
    for s in unit.values("Service", "RestrictAddressFamilies"):
        value = s.value
        if value.lower() == "none":
            allowed, denied = set(), set()
            continue
        invert = value.startswith("~")
        names = set(value.lstrip("~").split())
        if invert:
            if allowed is not None:
                allowed -= names
            else:
                denied |= names
        elif allowed is not None:
            allowed |= names
        else:
            allowed = names - denied if denied else names
            denied = set()
    if allowed is not None:
        return allowed
    return {"~", *denied} if denied else None


def family_allowed(families: set[str] | None, family: str) -> bool:
    """Whether ``family`` (``AF_INET``) is left by :func:`address_families`' answer."""
    if families is None:
        return True
    if "~" in families:
        return family not in families
    return family in families
