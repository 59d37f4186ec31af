"""Device drivers chosen by name, as python-can chooses a bus by its ``interface``.

Each kind of device has its registry of drivers: the name the configuration gives
(``[reader] driver``, ``[shuffler] driver``) and the link class that speaks to such a device.
:func:`reader_link` and :func:`shuffler_link` build a link by its driver's name; a name no
driver has is :class:`firmware_bridge.errors.UnknownDriver`, naming the ones there are.

A driver is a :class:`firmware_bridge.device_link.DeviceLink` (a
:class:`firmware_bridge.reader_link.ReaderLink` or a
:class:`firmware_bridge.shuffler_link.ShufflerLink`) whose constructor takes the device's
name, ``emit`` and the configured port, then its own settings by keyword (python-can's
``**kwargs``): a new backend (a PN532 reader, a vendor's shuffler adapter) is one class and one
line here.

>>> sorted(READERS), sorted(SHUFFLERS), DEFAULT_READER, DEFAULT_SHUFFLER
(['bridge', 'feig'], ['tablectl'], 'feig', 'tablectl')
>>> from firmware_bridge.serial_port import Port, PortSettings
>>> link = reader_link("feig", "reader", print, PortSettings("loop://"), antennas=None)
>>> type(link).__name__, link.name, link.port_settings.url
('FeigReaderLink', 'reader', 'loop://')
>>> shuffler_link("shufflematic", "shuffler", print, PortSettings("loop://"))
Traceback (most recent call last):
...
firmware_bridge.errors.UnknownDriver: shuffler: no driver 'shufflematic' (drivers: tablectl)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from firmware_bridge import feig
from firmware_bridge.errors import UnknownDriver

if TYPE_CHECKING:  # (types only: the links' modules are imported when a driver is looked up)
    from firmware_bridge.device_link import DeviceLink, Emit
    from firmware_bridge.reader_link import ReaderLink
    from firmware_bridge.serial_port import Port, PortSettings
    from firmware_bridge.shuffler_link import ShufflerLink

__all__ = ["READERS", "SHUFFLERS", "DEFAULT_READER", "DEFAULT_SHUFFLER", "KINDS", "driver", "reader_client",
           "reader_link", "shuffler_link"]

L = TypeVar("L", bound="DeviceLink")


class _Registry(Mapping[str, "type[L]"]):
    """A registry of drivers: each name's link class, its module imported when the class is first
    looked up. The configuration checks a driver's name against the names alone
    (controller/config/daemon.py), and ``tablectl simulate``, the doctor and the history load the
    configuration without running a link: none of them loads the links' modules, pyserial and
    both readers' clients (start-up time on a Pi).

    >>> r = _Registry({"feig": _feig_link}); list(r), "feig" in r, r["feig"].__name__
    (['feig'], True, 'FeigReaderLink')
    """

    def __init__(self, loaders: Mapping[str, Callable[[], type[L]]]) -> None:
        self._loaders = dict(loaders)

    def __getitem__(self, name: str) -> type[L]:
        return self._loaders[name]()

    def __contains__(self, name: object) -> bool:  # (a name checked: no module imported)
        return name in self._loaders

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaders)

    def __len__(self) -> int:
        return len(self._loaders)


def _feig_link() -> type[ReaderLink]:
    from firmware_bridge.reader_link import FeigReaderLink  # (looked up: see _Registry)

    return FeigReaderLink


def _bridge_link() -> type[ReaderLink]:
    from firmware_bridge.reader_link import BridgeReaderLink  # (looked up: see _Registry)

    return BridgeReaderLink


def _serial_shuffler_link() -> type[ShufflerLink]:
    from firmware_bridge.shuffler_link import SerialShufflerLink  # (looked up: see _Registry)

    return SerialShufflerLink


#: the readers' drivers: the FEIG ISO Host protocol (docs/protocols/feig.md), our bridge board's
#: (docs/protocols/bridge.md)
READERS: Mapping[str, type[ReaderLink]] = _Registry({"feig": _feig_link, "bridge": _bridge_link})
#: the shufflers' drivers: tablectl's own bridge protocol (docs/protocols/shuffler.md)
SHUFFLERS: Mapping[str, type[ShufflerLink]] = _Registry({"tablectl": _serial_shuffler_link})
#: the driver of a configuration that names none
DEFAULT_READER = "feig"
DEFAULT_SHUFFLER = "tablectl"
#: each kind of device's registry
KINDS: Mapping[str, Mapping[str, type[DeviceLink]]] = {"reader": READERS, "shuffler": SHUFFLERS}


def _lookup(kind: str, registry: Mapping[str, type[L]], name: str) -> type[L]:
    # (the name checked first, then looked up: a lookup imports the link's module (_Registry), and
    # a KeyError raised by that import is a fault of the module, not an unknown driver)
    if name not in registry:
        raise UnknownDriver(kind, name, tuple(sorted(registry)))
    return registry[name]


def driver(kind: str, name: str) -> type[DeviceLink]:
    """The link class of the driver ``name`` for a ``kind`` of device (``reader``, ``shuffler``).

    >>> driver("reader", "feig").__name__
    'FeigReaderLink'
    >>> driver("display", "feig")
    Traceback (most recent call last):
    ...
    ValueError: no kind of device 'display' (kinds: reader, shuffler)
    """
    registry = KINDS.get(kind)
    if registry is None:
        raise ValueError(f"no kind of device {kind!r} (kinds: {', '.join(KINDS)})")
    return _lookup(kind, registry, name)


def reader_link(name: str, device: str, emit: Emit, port: PortSettings, **options: Any) -> ReaderLink:
    """The reader ``device``'s link, by its driver's ``name`` (:data:`READERS`): ``options`` are
    the driver's own settings (for ``feig``: ``antennas``, ``com_adr``, ``answer_timeout``...;
    ``opener`` for any)."""
    return _lookup("reader", READERS, name)(device, emit, port=port, **options)


def shuffler_link(name: str, device: str, emit: Emit, port: PortSettings, **options: Any) -> ShufflerLink:
    """The shuffler ``device``'s link, by its driver's ``name`` (:data:`SHUFFLERS`): ``options``
    are the driver's own settings (for ``tablectl``: ``poll_interval``, ``answer_timeout``...;
    ``opener`` for any)."""
    return _lookup("shuffler", SHUFFLERS, name)(device, emit, port=port, **options)


def reader_client(name: str, port: Port, *, device: str, com_adr: int = feig.BROADCAST,
                  ant_sel_bytes: int = 2) -> Any:
    """The client the bench tools (``tablectl tags``, ``register``, ``verify``, ``calibrate``)
    ask a reader through, by its driver's ``name``: ``inventory(antennas=, deadline_s=)`` gives a
    cycle's :class:`firmware_bridge.feig.TagRecord` s, whichever the reader. ``com_adr`` and
    ``ant_sel_bytes`` are the FEIG reader's (the bridge board has neither).

    >>> import serial
    >>> port = serial.serial_for_url("loop://")
    >>> [type(reader_client(name, port, device="tags")).__name__ for name in ("bridge", "feig")]
    ['BridgeClient', 'FeigClient']
    """
    if name == "bridge":
        from firmware_bridge.bridge_client import BridgeClient  # (the driver named only: see _Registry)

        return BridgeClient(port, device=device)
    if name == "feig":
        from firmware_bridge.feig_client import FeigClient  # (the driver named only: see _Registry)

        return FeigClient(port, device=device, com_adr=com_adr, ant_sel_bytes=ant_sel_bytes)
    raise UnknownDriver("reader", name, tuple(sorted(READERS)))
