"""The deck registry: which tag is which card of which deck.

A deck is registered from a manifest (``UID CARD`` per line) or by reading it in its set-up
order over one antenna (DECK-008 order, see :func:`controller.core.cards.setup_order`). A table
holds at most two decks (DECK-005); a tag in no registered deck is a foreign card (DECK-006).

>>> text = "# deck A\\nE0040150A05F0000 As\\nE0040150A05F0001 2s\\n"
>>> parse_manifest(text, source="A.txt", require_full=False)
{'E0040150A05F0000': 'As', 'E0040150A05F0001': '2s'}
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from collections.abc import Iterable, Sequence
from typing import Any

from controller.core.cards import CardError, parse_card, setup_order
from controller.core.text import NotUtf8, decode_utf8
from controller.core.errors import StateError
from controller.core.cards import is_card

#: a tag's UID at its own length, most significant byte first, never padded: 16 hex digits for an
#: ISO 15693 tag (8 bytes, E0 first), 14 for an ISO 14443A double-size UID (7 bytes: NTAG213,
#: MIFARE Ultralight). A 4-byte single-size UID is refused: not unique, some drawn at random
#: (docs/decisions/0042-the-bridge-board.md)
_UID_RE = re.compile(r"^(?:[0-9A-F]{14}|[0-9A-F]{16})$")
#: what a UID must be, for the errors
UID_FORM = "16 hex digits (ISO 15693) or 14 (ISO 14443A), most significant byte first"


#: the largest manifest read: 52 lines of about 20 bytes, with room for comments
MANIFEST_MAX_BYTES = 64 * 1024


class RegistryError(ValueError):
    """A manifest, a registration or a set of decks that cannot be used; says what and where."""


def normalise_uid(text: str) -> str:
    """16 or 14 uppercase hex digits (:data:`UID_FORM`), or RegistryError.

    >>> normalise_uid("04:a2:b3:c4:d5:e6:80"), normalise_uid("e004015012345678")
    ('04A2B3C4D5E680', 'E004015012345678')
    >>> normalise_uid("04A2B3C4")
    Traceback (most recent call last):
    ...
    controller.core.registry.RegistryError: not a tag UID: '04A2B3C4' (want 16 hex digits (ISO 15693) or 14
    (ISO 14443A), most significant byte first)
    """
    uid = text.strip().upper().replace(":", "").replace(" ", "")
    if not _UID_RE.match(uid):
        raise RegistryError(f"not a tag UID: {text!r} (want {UID_FORM})")
    return uid


def parse_manifest(text: str | bytes, *, source: str, require_full: bool = True) -> dict[str, str]:
    """Parse a deck manifest: one ``UID CARD`` pair per line, ``#`` starts a comment.

    Errors name the file and the line. With ``require_full`` the manifest must hold the 52
    cards exactly once each (DECK-001's pass condition). ``text`` may be the file's bytes:
    they must be UTF-8.

    >>> parse_manifest(b"E0040150A05F0000 As\\n\\xff", source="A.txt")
    Traceback (most recent call last):
    ...
    controller.core.registry.RegistryError: A.txt:2: not UTF-8 text (line 2, column 1); save the manifest as UTF-8
    """
    if isinstance(text, bytes):
        try:
            text = decode_utf8(text)
        except NotUtf8 as exc:
            raise RegistryError(f"{source}:{exc.line}: {exc}; save the manifest as UTF-8") from None
    cards: dict[str, str] = {}
    seen: dict[str, int] = {}
    tag_line: dict[str, int] = {}
    for no, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise RegistryError(f"{source}:{no}: want 'UID CARD' (two words), got {len(parts)}")
        # The errors name the line, never quote it: a tag UID is a secret (it names a card), and a
        # manifest named over the control socket may be any file the daemon can read.
        # (from None: the low-level errors quote the text, and a traceback would print them)
        try:
            uid = normalise_uid(parts[0])
        except RegistryError:
            raise RegistryError(f"{source}:{no}: not a tag UID (want {UID_FORM})") from None
        try:
            card = parse_card(parts[1])
        except CardError:
            raise RegistryError(f"{source}:{no}: not a card (write rank then suit, e.g. 'As', 'Td', "
                                f"'7h')") from None
        if uid in cards:
            raise RegistryError(f"{source}:{no}: a tag listed twice (first on line {tag_line[uid]})")
        if card in seen:
            raise RegistryError(f"{source}:{no}: card {card} listed twice (first on line {seen[card]})")
        cards[uid] = card
        seen[card] = no
        tag_line[uid] = no
    if require_full:
        missing = [c for c in setup_order() if c not in seen]
        if missing:
            raise RegistryError(f"{source}: deck is short {len(missing)} card(s): {' '.join(missing)}")
    return cards


def cards_from_setup_order(uids: Sequence[str]) -> dict[str, str]:
    """Map the UIDs read from a deck in set-up order (top first) to their cards (DECK-008)."""
    order = setup_order()
    if len(set(uids)) != len(uids):
        dup = sorted({u for u in uids if list(uids).count(u) > 1})
        raise RegistryError(f"tag(s) read twice while registering: {' '.join(dup)}")
    if len(uids) != 52:
        raise RegistryError(f"registration read {len(uids)} tags; a deck has 52")
    return {normalise_uid(u): c for u, c in zip(uids, order, strict=True)}


@dataclass(frozen=True, slots=True)
class TagInfo:
    uid: str
    card: str
    deck: str
    back: str


@dataclass(slots=True)
class Deck:
    id: str
    back: str
    cards: dict[str, str]  # uid -> card


@dataclass(slots=True)
class DeckRegistry:
    """Registered decks and the reverse index from UID to card.

    >>> reg = DeckRegistry()
    >>> reg.add(Deck("A", "red", {"E0040150A05F0000": "As"}))
    >>> reg.lookup("E0040150A05F0000").card
    'As'
    >>> reg.lookup("E0040150A05F02B7") is None
    True
    """

    decks: dict[str, Deck] = field(default_factory=dict)
    _by_uid: dict[str, TagInfo] = field(default_factory=dict)

    MAX_DECKS = 2  # DECK-005: never more than two decks at a table

    def add(self, deck: Deck) -> None:
        if deck.id in self.decks:
            raise RegistryError(f"deck {deck.id!r} is registered already")
        if len(self.decks) >= self.MAX_DECKS:
            raise RegistryError(f"a table holds at most {self.MAX_DECKS} decks (DECK-005); "
                                f"registered: {', '.join(self.decks)}")
        clash = [u for u in deck.cards if u in self._by_uid]
        if clash:
            # (by card, never by UID: a registered tag's UID is the key to reading a deck from
            # outside, and this refusal reaches the floor: docs/room.md, "UIDs")
            other = self._by_uid[clash[0]]
            raise RegistryError(f"deck {deck.id!r} shares {len(clash)} tag(s) with deck {other.deck!r}, "
                                f"e.g. its {deck.cards[clash[0]]} is {other.card} of deck {other.deck!r}")
        self.decks[deck.id] = deck
        for uid, card in deck.cards.items():
            self._by_uid[uid] = TagInfo(uid, card, deck.id, deck.back)

    def lookup(self, uid: str) -> TagInfo | None:
        return self._by_uid.get(uid)

    def to_state(self) -> dict[str, Any]:
        """The decks as plain data (controller.core.state); the index is rebuilt from them."""
        return {"decks": [[d.id, d.back, dict(d.cards)] for d in self.decks.values()]}

    @classmethod
    def from_state(cls, values: dict[str, Any], *, where: str = "registry") -> DeckRegistry:
        """The inverse of :meth:`to_state`, each deck checked as :meth:`add` checks a new one.

        >>> DeckRegistry.from_state({"decks": [["A", "red", {"E0": "As"}]]}).lookup("E0").card
        'As'
        >>> DeckRegistry.from_state({"decks": [["A", "red", {"E0": "Xx"}]]})
        Traceback (most recent call last):
        ...
        controller.core.errors.StateError: registry.decks[0]: a card that is no card
        """

        decks = values.get("decks")
        if set(values) != {"decks"} or type(decks) is not list:
            raise StateError(f"{where}: want exactly a list of decks")
        reg = cls()
        for i, d in enumerate(decks):
            here = f"{where}.decks[{i}]"
            if type(d) is not list or len(d) != 3 or type(d[0]) is not str or type(d[1]) is not str \
                    or type(d[2]) is not dict:
                raise StateError(f"{here}: want [id, back, {{uid: card}}]")
            for card in d[2].values():
                if type(card) is not str or not is_card(card):
                    raise StateError(f"{here}: a card that is no card")  # (never its text: logged)
            try:
                reg.add(Deck(d[0], d[1], dict(d[2])))
            except RegistryError as exc:  # (its message names a UID: not for a log)
                raise StateError(f"{here}: a deck the registry refuses (a third deck, or shared tags)") from exc
        return reg


class SetupOrderReading:
    """Registers a deck read card by card, in set-up order, over one antenna (DECK-008).

    Feed it the UIDs of each inventory cycle; a UID not seen before is the next card. Two new
    UIDs in one cycle leave their order unknown, so that is refused: one card at a time.

    >>> from hw_sim.decks import sim_uid
    >>> r = SetupOrderReading()
    >>> r.feed([sim_uid("A", "As")]); r.feed([sim_uid("A", "As"), sim_uid("A", "2s")])
    >>> r.count, r.next_card
    (2, '3s')
    """

    def __init__(self) -> None:
        self.uids: list[str] = []
        self._seen: set[str] = set()

    @property
    def count(self) -> int:
        return len(self.uids)

    @property
    def done(self) -> bool:
        return len(self.uids) == 52

    @property
    def next_card(self) -> str | None:
        return None if self.done else setup_order()[len(self.uids)]

    def feed(self, uids: Iterable[str]) -> None:
        new = [u for u in dict.fromkeys(normalise_uid(u) for u in uids) if u not in self._seen]
        if len(new) > 1:
            raise RegistryError(f"{len(new)} new tags in one read after card {len(self.uids)} "
                                f"({' '.join(new)}): lay the cards on the antenna one at a time")
        if new and self.done:
            raise RegistryError(f"a 53rd tag was read ({new[0]}): the deck holds a foreign card")
        for u in new:
            self._seen.add(u)
            self.uids.append(u)

    def cards(self) -> dict[str, str]:
        return cards_from_setup_order(self.uids)


#: the first line ``tablectl register`` writes (:func:`manifest_of`): the deck's id and its back
_HEADER_RE = re.compile(r"#\s*deck\s+(?P<id>[^\s,]+)\s*,\s*(?P<back>[^,]*?)\s+back\b")


def manifest_header(text: str | bytes) -> tuple[str, str] | None:
    """The deck id and back colour a manifest's own first line names, as ``tablectl register``
    writes it (:func:`manifest_of`); None for a manifest without that line (one written by hand).

    >>> manifest_header("# deck A, red back, in set-up order (top first)\\nE0040150A05F0000 As\\n")
    ('A', 'red')
    >>> manifest_header(b"# deck B, dark blue back\\n"), manifest_header("# the A deck\\nE0040150A05F0000 As")
    (('B', 'dark blue'), None)
    """
    if isinstance(text, bytes):  # (the first line only; the rest is parse_manifest's to judge)
        text = text[:512].decode("utf-8", errors="replace")
    for line in text.splitlines():
        if line.strip():
            m = _HEADER_RE.match(line.strip())
            return (m["id"], m["back"]) if m else None
    return None


def check_header(text: str | bytes, *, deck_id: str, back: str, source: str) -> None:
    """Refuse a manifest whose own header names another deck than the one it is given for: a
    manifest put under the other deck's entry, or the id and the back swapped, would map every
    tag of the deck to the wrong deck (a foreign or wrong-deck card, DECK-006, on every read) or
    give the dealer the wrong back to look for (DECK-004). A manifest without a header is taken as
    it is. The back is compared as DECK-004 compares backs: without case.

    >>> check_header("# deck A, red back\\n", deck_id="A", back="Red", source="A.txt")
    >>> check_header("# deck A, red back\\n", deck_id="B", back="blue", source="A.txt")
    Traceback (most recent call last):
    ...
    controller.core.registry.RegistryError: A.txt: its header says deck A, red back, but it is given as deck B, \
blue back: the manifest of another deck, or the id and back mixed up (give the deck its own manifest, id and back, \
or register it again with tablectl register)
    """
    found = manifest_header(text)
    if found is None:
        return
    header_id, header_back = found
    if header_id == deck_id and header_back.casefold() == back.casefold():
        return
    raise RegistryError(f"{source}: its header says deck {header_id}, {header_back} back, but it is given as deck "
                        f"{deck_id}, {back} back: the manifest of another deck, or the id and back mixed up (give "
                        f"the deck its own manifest, id and back, or register it again with tablectl register)")


def manifest_of(cards: dict[str, str], *, deck_id: str, back: str) -> str:
    """A manifest's text for ``cards`` (uid -> card), in set-up order."""
    rank = {c: i for i, c in enumerate(setup_order())}
    lines = [f"# deck {deck_id}, {back} back, in set-up order (top first)"]
    lines += [f"{u} {c}" for u, c in sorted(cards.items(), key=lambda uc: rank[uc[1]])]
    return "\n".join(lines) + "\n"
