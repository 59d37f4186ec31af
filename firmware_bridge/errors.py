"""The bridge's exceptions, one tree in the style of python-can.

Catch :class:`BridgeError` to catch anything the bridge raises on purpose::

    BridgeError
     +-- ProtocolError     (also a ValueError)
     +-- UnknownDriver     (also a ValueError)
     +-- LinkError
     |    +-- DeviceNotFound
     +-- ResponseTimeout   (also a TimeoutError)
     |    +-- WrongAddress
     +-- ReaderStatusError
     +-- CorruptAnswer

>>> issubclass(DeviceNotFound, LinkError) and issubclass(ProtocolError, ValueError)
True
"""

from __future__ import annotations

__all__ = ["BridgeError", "ProtocolError", "UnknownDriver", "LinkError", "DeviceNotFound", "ResponseTimeout",
           "ReaderStatusError", "CorruptAnswer", "WrongAddress"]


class BridgeError(Exception):
    """Base class of every error the firmware bridge raises."""


class ProtocolError(BridgeError, ValueError):
    """A frame that passed its checksum but whose content makes no sense.

    For example an inventory answer whose record lengths do not add up. The frame arrived
    intact, so retrying the same request may well give the same answer: the caller should
    log the raw frame (the message names the offset and what was expected there).
    """


class UnknownDriver(BridgeError, ValueError):
    """No driver of that name for that kind of device (:mod:`firmware_bridge.drivers`).

    The message names the device and the drivers there are, for the configuration's error:

    >>> raise UnknownDriver("reader", "pn532", ("feig",))
    Traceback (most recent call last):
    ...
    firmware_bridge.errors.UnknownDriver: reader: no driver 'pn532' (drivers: feig)
    """

    def __init__(self, kind: str, name: str, known: tuple[str, ...]) -> None:
        self.kind = kind
        self.name = name
        self.known = known
        super().__init__(f"{kind}: no driver {name!r} (drivers: {', '.join(known)})")


class LinkError(BridgeError):
    """The link to a device failed: the port cannot be opened, read or written.

    Raised ``from`` the underlying serial or OS exception, which stays available as
    ``__cause__``.
    """


class DeviceNotFound(LinkError):
    """The device's port does not exist (unplugged, or the udev name is wrong)."""


class ResponseTimeout(BridgeError, TimeoutError):
    """A device did not answer a request in time.

    Not a :class:`LinkError`: the port itself still works, and a single missed answer is
    not a lost device (the link decides that after several in a row).
    """


class WrongAddress(ResponseTimeout):
    """No answer came from the address asked, but answers from another bus address did.

    On a shared RS-485 line they are another device's, and were dropped (counted, never
    taken as ours). ``seen`` is the COM-ADR of the last of them, ``expected`` ours.
    """

    def __init__(self, device: str, *, seen: int, expected: int) -> None:
        self.seen = seen
        self.expected = expected
        super().__init__(f"{device}: answers come from address 0x{seen:02X}, expected 0x{expected:02X}")


class ReaderStatusError(BridgeError):
    """The reader answered, but with an error status (RF error, buffer overflow, ISO error).

    The cycle it belongs to is dropped: an empty answer would wrongly say no card is there.
    """


class CorruptAnswer(BridgeError):
    """The reader answered, but only damaged frames arrived before the deadline.

    The frames were counted and logged with their raw bytes; the cycle is dropped. The reader
    is alive, so this does not count towards heartbeat loss.
    """
