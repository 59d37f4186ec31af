"""The scripted dealer: plays deal-script steps onto the simulated devices.

It pitches tags onto antennas, mucks seats, presses pads and pulls cables, and paces itself on
the daemon (``hw_sim.pacing``): the reader cycles run when the dealer asks for them, one after
the other, each taken in by the daemon before the next. After a card is put, the dealer runs
cycles until the daemon has confirmed it where it was put (:meth:`ScriptedDealer.daemon_placed`,
told by the table of every CardPlaced), as a dealer watching the tracker would: a card confirmed
on its first read takes one cycle. A card the daemon does not confirm (a foreign tag, a card it
refuses, a clone) is waited for until the reader has *reported* it at its new antenna, as the
strongest read, for as many cycles as the daemon needs to believe it (``confirm_cycles``), and
one cycle more.

A card moved back on the stub (``{"move": CARD, "to": "stub"}``), or gathered into a rebuilt
stub (``{"restub": [...]}``), is no longer read anywhere; the dealer then lets ``gone_cycles`` + 2
cycles pass, the daemon's own patience for a card that is gone (``gone_cycles`` of the
configuration) and two more.

The same dealer serves the in-process harness (``hw_sim.harness``) and ``tablectl
simulate`` (``hw_sim.simulate``); only the transport to the daemon differs, so the
two give the same report by construction.

Every cycle is logged with the step in force when the reader looked at its field, and every
operation with its instant, so that an alert, stamped by the daemon within the cycle or the
operation that raised it, can be traced back to a script step (:meth:`StepLog.step_at`).
"""

from __future__ import annotations

import bisect
import random
import threading
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar
from collections.abc import Callable

from hw_sim import script as sc
from hw_sim.decks import sim_uid
from hw_sim.feig_reader import CycleReads, SimFeigReader
from hw_sim.shuffler import SimShuffler
from controller.core.cards import setup_order
from hw_sim.tracking_run import percentile

if TYPE_CHECKING:
    from hw_sim.pacing import PacedTable

StepId = tuple[int, int]  # (hand, step), both counted from 1


class StepLog:
    """Times at which each script step was in force, as seen by the devices."""

    def __init__(self) -> None:
        self._times: list[float] = []
        self._steps: list[StepId] = []
        self._lock = threading.Lock()

    def mark(self, step: StepId, when: float) -> None:
        """Note that ``step`` was in force at ``when``. Marks may come in late (the reader
        thread reports a cycle after the dealer moved on), so they are kept in time order."""
        with self._lock:
            t = when
            i = bisect.bisect_right(self._times, t)
            if i and self._steps[i - 1] == step:
                return  # the step's first observation is what separates it from the one before
            self._times.insert(i, t)
            self._steps.insert(i, step)

    def step_at(self, ts: float) -> StepId | None:
        """The step in force at the latest device observation before ``ts``."""
        with self._lock:
            i = bisect.bisect_left(self._times, ts)
            return self._steps[i - 1] if i else None


class SimulationError(RuntimeError):
    """The simulated table could not go on (the daemon stopped answering, say)."""


@dataclass
class _Watch:
    antenna: int
    streak: int = 0
    label: str = ""  # the card as the daemon names it (``As``, ``As@B``, ``tag:...``)
    zone: str = ""
    first: int | None = None  # the cycle in which the reader first heard it at its antenna
    placed: bool = False  # the daemon confirmed it at its antenna (:meth:`ScriptedDealer.daemon_placed`)


class ScriptedDealer:
    """Deals a parsed script hand by hand onto a :class:`SimFeigReader`."""

    def __init__(self, reader: SimFeigReader, antenna_of: dict[str, int], daemon: PacedTable, *,
                 confirm_cycles: int, gone_cycles: int = 8, deck_in_play: str = "A",
                 max_cycles_per_step: int = 200, shuffler: SimShuffler | None = None) -> None:
        """``daemon``: the paced table (``hw_sim.pacing.PacedTable``) whose cycles the dealer
        runs; its timeline stamps the dealer's marks and the reader's looks."""
        self.reader = reader
        self.antenna_of = antenna_of
        self.daemon = daemon
        self.confirm = confirm_cycles
        self.gone_cycles = gone_cycles
        self.deck_in_play = deck_in_play
        self.max_cycles = max_cycles_per_step
        self.log = StepLog()
        self.current: StepId = (0, 0)
        self._watch: dict[str, _Watch] = {}
        self._lock = threading.Lock()  # (the reader's thread reports its cycles under simulate)
        self._cycles = 0
        self._physical: dict[str, str] = {}  # physical tag key -> zone (``held``: in a player's hand)
        self._held: dict[str, str] = {}  # physical tag key -> UID, of the cards held off the table (a lift)
        self._looks: list[float] = []  # when the reader looked at its field, cycle by cycle
        #: (uid, card, zone, cycle first heard there) of every card laid on an antenna and heard
        #: there: the report's ``tracking`` block (:func:`confirm_latency`)
        self.placed: list[tuple[str, str, str, int]] = []
        self.steps_done = 0  # counted over all hands, for crash_after
        #: the floor's releases and clock calls played so far: a release's ``round``, a clock's
        #: ``n`` (the floor's own counts, controller/room/tournament.py)
        self.releases = 0
        self.clocks = 0
        #: script hand -> the daemon's number for it (a hand without cards gets none)
        self.record_of: dict[int, int] = {}
        self.on_step: Callable[[int], None] | None = None
        self.shuffler = shuffler
        #: the physical deck (deal-script ``deck``): what the shuffler reads when it shuffles
        self.deck: sc.DeckSpec | None = None
        time_ = daemon.time
        self.clock: Callable[[], float] = time_.peek  # the instant the dealer's next operation has
        reader.clock = lambda: time_.base  # the reader looks at its field at the cycle's instant
        reader.on_cycle = self._on_cycle
        daemon.dealer = self

    # -- pacing ------------------------------------------------------------------------------
    def _on_cycle(self, n: int, reads: CycleReads, label: object, looked: float) -> None:
        if isinstance(label, tuple):
            self.log.mark(label, looked)  # type: ignore[arg-type]
        with self._lock:
            self._cycles += 1
            self._looks.append(looked)
            for uid, w in self._watch.items():
                heard = reads.get(uid)
                if not heard:
                    continue  # a missed read: evidence neither way
                if w.first is None and any(a == w.antenna for a, _ in heard):
                    w.first = self._cycles
                    self.placed.append((uid, w.label, w.zone, w.first))
                best = max(heard, key=lambda ar: ar[1])[0]
                w.streak = w.streak + 1 if best == w.antenna else 0

    def daemon_placed(self, uid: str, card: str, zone: str) -> None:
        """The daemon confirmed ``card`` (tag ``uid``; empty on a public effect, which names the
        card only) in ``zone``: a card watched there is settled (see the module)."""
        with self._lock:
            if uid:
                w = self._watch.get(uid)
                if w is not None and w.zone == zone:
                    w.placed = True
                return
            for w in self._watch.values():
                if w.label == card and w.zone == zone:
                    w.placed = True

    def _until(self, done: Callable[[], bool], what: str) -> None:
        """Pace the dealer: run reader cycles until ``done()`` holds, at most ``max_cycles`` + the
        daemon's patience beyond what any step needs."""
        limit = self.max_cycles + 4 * self.gone_cycles + 10
        for _ in range(limit):
            if done():
                return
            self.daemon.cycle()
        if done():
            return
        raise SimulationError(f"hand {self.current[0]}, step {self.current[1]}: {what} never happened "
                              f"in {limit} reader cycles")

    def _settle(self, streak: int | None = None) -> None:
        """Wait until the daemon must have confirmed every watched card, then one cycle more;
        no cycle more when the daemon said it confirmed every one (see the module). ``streak``:
        the reads in a row at its antenna that settle a card the daemon says nothing of
        (``confirm_cycles`` unless given)."""
        with self._lock:
            start = self._cycles
        need = self.confirm if streak is None else streak
        # (a cloned tag strong at two antennas has no single best: give up after max_cycles)
        self._until(lambda: self._cycles - start >= self.max_cycles
                    or all(w.placed or w.streak >= need for w in self._watch.values()), "the cards settling")
        with self._lock:
            told = bool(self._watch) and all(w.placed for w in self._watch.values())
            self._watch.clear()
            target = self._cycles + (0 if told else 1)
        self._until(lambda: self._cycles >= target, "one more reader cycle")

    def _wait_gone(self) -> None:
        """Wait until the daemon must have noticed that a card left every antenna: it believes
        that after ``gone_cycles`` cycles without a read; one more for it to take that in, and
        one because the cycle in flight may have looked at the field before the card left."""
        with self._lock:
            target = self._cycles + self.gone_cycles + 2
        self._until(lambda: self._cycles >= target, "the card leaving")

    def confirm_latency(self, placed: list[dict]) -> dict:
        """The report's ``tracking`` block (deal-script.md): for every card laid on an antenna,
        the reader cycles from the one in which the reader first heard it there to the one in
        which the daemon confirmed it there (``placed``: the daemon's CardPlaced effects as the
        feed has them, in order), both counted: 1 is a card confirmed on its first read."""

        with self._lock:
            looks = list(self._looks)
            cards = list(self.placed)
        # Each card is matched with the first effect not matched yet that names it (by its UID,
        # or by the card on a public effect, which carries no UID) in its zone, from the cycle
        # it was first heard there. The effects are looked up by (zone, uid) and (zone, card)
        # rather than scanned: a session of hundreds of hands has tens of thousands of both.
        by_uid: dict[tuple[str, str], deque[int]] = {}
        by_card: dict[tuple[str, str], deque[int]] = {}
        for i, e in enumerate(placed):
            by_uid.setdefault((e["zone"], e["uid"]), deque()).append(i)
            if not e["uid"]:
                by_card.setdefault((e["zone"], e["card"]), deque()).append(i)
        cycles = []
        used: set[int] = set()
        # The cards come in the order they were first heard: an effect too early for one card is
        # too early for every later one, and is dropped (if the order held: it always does).
        afters = [looks[first - 1] for *_, first in cards]
        ordered = all(a <= b for a, b in zip(afters, afters[1:], strict=False))
        for (uid, label, zone, first), after in zip(cards, afters, strict=True):
            found = []
            for idx in (by_uid.get((zone, uid)), by_card.get((zone, label))):
                if idx:
                    while idx and (idx[0] in used or (ordered and placed[idx[0]]["ts"] < after)):
                        idx.popleft()
                    found.append(next((i for i in idx if i not in used and placed[i]["ts"] >= after), None))
            hits = [i for i in found if i is not None]
            if hits:
                i = min(hits)
                used.add(i)
                cycles.append(bisect.bisect_right(looks, placed[i]["ts"]) - first + 1)
        if not cycles:
            return {"cards": 0, "confirm_cycles": {"p50": None, "p99": None, "max": None}}
        return {"cards": len(cycles), "confirm_cycles": {"p50": percentile(cycles, 50), "p99": percentile(cycles, 99),
                                                         "max": max(cycles)}}

    # -- the physical table ------------------------------------------------------------------
    def _uid(self, ref: sc.CardRef) -> str:
        if ref.uid is not None:
            return ref.uid
        return sim_uid(ref.deck or self.deck_in_play, ref.card)  # type: ignore[arg-type]

    def _put(self, key: str, uid: str, zone: str) -> None:
        antenna = self.antenna_of[zone]
        self._physical[key] = zone
        self._held.pop(key, None)
        self.reader.place(key, uid, antenna)
        with self._lock:
            self._watch[uid] = _Watch(antenna, label=key.split("#", 1)[0], zone=zone)

    def _key_of(self, ref: sc.CardRef) -> str:
        """The physical key of the card ``ref`` names that lies on the table: found by its UID,
        since ``As``, ``As@A`` and its ``tag:`` name the same tag; the original before a clone."""
        uid = self._uid(ref)
        keys = [k for k in self._physical if self._key_uid(k) == uid]
        if not keys:
            raise SimulationError(f"hand {self.current[0]}, step {self.current[1]}: {ref} is not on the table")
        return min(keys, key=lambda k: "#clone" in k)  # the original tag if it is there

    def _key_uid(self, key: str) -> str:
        """The UID of physical tag ``key``, on the table or held off it."""
        held = self._held.get(key)
        return held if held is not None else self.reader.uid_of(key)

    def physical_deck(self) -> list[str]:
        """The UIDs of the deck in play as the script has it: the 52 less ``deck.missing``,
        plus ``deck.extra``, shuffled (repeatably: the order depends on the step)."""
        spec = self.deck or sc.DeckSpec()
        gone = {self._uid(r) for r in spec.missing}
        uids = [u for u in (sim_uid(self.deck_in_play, c) for c in setup_order()) if u not in gone]
        uids += [self._uid(r) for r in spec.extra]
        random.Random(hash(self.current) & 0xFFFF).shuffle(uids)
        return uids

    def _shuffler_step(self, action: sc.Shuffler) -> None:
        """A shuffle reported, or a fault: wait until the daemon has heard it."""
        sim = self.shuffler
        if sim is None:
            raise SimulationError(f"hand {self.current[0]}, step {self.current[1]}: this table has no shuffler")
        t0 = self.clock()
        if action.action == "deck":
            uids = [self._uid(r) for r in action.cards] if action.cards is not None else self.physical_deck()
            before = self.daemon.shuffler_reports
            sim.shuffle(uids)
            # (the daemon's link takes the report at its next poll and acknowledges it there)
            self._until(lambda: self.daemon.shuffler_reports > before, "the daemon taking the shuffler's deck report")
        elif action.action == "ready" and sim.state not in ("jam", "door_open", "error"):
            pass  # nothing to clear: the daemon hears nothing new
        else:
            {"jam": sim.jam, "door_open": sim.door_open, "ready": sim.clear,
             "error": lambda: sim.error(1)}[action.action]()
            code = "shuffler.cleared" if action.action == "ready" else f"shuffler.{action.action}"
            if not self.daemon.wait_alert(code, t0, 0):
                raise SimulationError(f"hand {self.current[0]}, step {self.current[1]}: the daemon never "
                                      f"heard the shuffler's {action.action.replace('_', ' ')}")
        self._settle()  # a reader cycle or two: the report is in before the next card

    def play_step(self, hand_no: int, index: int, action: object) -> None:
        """Play step ``index`` (from 1) of hand ``hand_no``: ``action`` at the table, paced on the daemon."""
        self.current = (hand_no, index)
        self.reader.label = self.current
        play = self._PLAY.get(type(action))
        if play is not None:
            play(self, action)
        self.steps_done += 1
        if self.on_step is not None:
            self.on_step(self.steps_done)

    def _at(self) -> str:
        """The step in force, as a message names it: ``hand 2, step 5``."""
        return f"hand {self.current[0]}, step {self.current[1]}"

    def _forget(self, key: str, uid: str) -> None:
        """The card ``key`` (tag ``uid``) leaves the table: off every antenna, no longer watched."""
        self.reader.remove(key)
        del self._physical[key]  # the key is free again: a later deal may pitch the card anew
        self._held.pop(key, None)
        with self._lock:
            self._watch.pop(uid, None)

    def _deal(self, action: sc.Deal) -> None:
        # (``face_up`` changes nothing here: the reader cannot see which way a card faces)
        key = str(action.card) + ("#clone" if action.clone else "")
        while key in self._physical and action.clone:
            key += "+"
        uid = self._uid(action.card)
        if not action.clone:
            self._off_the_spot(uid, key)
        self._put(key, uid, action.to)
        self._settle()

    def _off_the_spot(self, uid: str, key: str) -> None:
        """A card dealt from a stub dropped on its spot (STUB-006) leaves the spot, whatever name
        the script gives it (``As``, ``As@A``, its tag)."""
        for k in [k for k, z in self._physical.items() if z == "stub" and k != key and self._key_uid(k) == uid]:
            self.reader.remove(k)
            del self._physical[k]

    def _muck(self, action: sc.Muck) -> None:
        seat = f"seat:{action.seat}"
        keys = [k for k, z in self._physical.items() if z == seat]
        for key in keys:
            self._put(key, self.reader.uid_of(key), "muck")
        self._settle()

    def _press(self, action: sc.Press) -> None:
        self.log.mark(self.current, self.clock())
        request: dict[str, object] = {"cmd": "press", "name": action.name}
        if action.long:
            request["long"] = True
        if action.seat is not None:
            request["seat"] = action.seat
        if action.hands is not None:
            request["hands"] = action.hands
        if action.mode is not None:
            request["mode"] = action.mode
        self.daemon.command(request)
        self._settle()

    def _move(self, action: sc.Move) -> None:
        key = self._key_of(action.card)
        uid = self._key_uid(key)
        if action.to == sc.STUB:
            self.log.mark(self.current, self.clock())
            self._forget(key, uid)
            self._wait_gone()
        else:  # like a deal, of the tag that is already out (or held off the table)
            self._put(key, uid, action.to)
            self._settle()

    def _stack(self, action: sc.Stack) -> None:
        """Chinese poker: a stack pushed whole (CHIN-001/002)."""
        for card in action.cards:
            uid = self._uid(card)
            self._off_the_spot(uid, str(card))
            self._put(str(card), uid, action.to)
        self._settle()

    def _discard(self, action: sc.Discard) -> None:
        """A draw: the seat's discards pushed into the muck."""
        for card in action.cards:
            key = self._key_of(card)
            self._put(key, self.reader.uid_of(key), "muck")
        self._settle()

    def _restub(self, action: sc.Restub) -> None:
        # The rebuilt stub (DRAW-005, STUD-007): the gathered cards leave every antenna, as a
        # move to the stub does; a card named that is not on the table is the stub's last card.
        self.log.mark(self.current, self.clock())
        gone = False
        for card in action.cards:
            uid = self._uid(card)
            for key in [k for k in self._physical if self._key_uid(k) == uid]:
                self._forget(key, uid)
                gone = True
        if gone:
            self._wait_gone()

    def _display_cable(self, plugged: bool) -> None:
        """The display's cable pulled or put back: wait until the daemon says so."""
        self.log.mark(self.current, self.clock())
        t0 = self.clock()
        cable = getattr(self.daemon, "display_cable", None)
        if cable is None:
            raise SimulationError(f"{self._at()}: the display's cable is pulled, but this "
                                  f"table has no simulated display")
        cable(plugged)
        code = "device.display_online" if plugged else "device.display_offline"
        if not self.daemon.wait_alert(code, t0, 0):
            raise SimulationError(f"{self._at()}: the daemon never said {code}")

    def _unplug(self, action: sc.Unplug) -> None:
        if action.device == "display":
            self._display_cable(False)
            return
        self.log.mark(self.current, self.clock())
        t0 = self.clock()
        if action.device == "reader":
            self.reader.unplug()
            if not self.daemon.wait_alert("device.reader_offline", t0, 0):
                raise SimulationError(f"{self._at()}: the daemon never noticed the reader was unplugged")

    def _plug(self, action: sc.Plug) -> None:
        if action.device == "display":
            self._display_cable(True)
            return
        self.log.mark(self.current, self.clock())
        t0 = self.clock()
        if action.device == "reader":
            self.reader.plug()
            if not self.daemon.wait_alert("device.reader_online", t0, 0):
                raise SimulationError(f"{self._at()}: the daemon never found the reader again")
            self._settle()

    def _shuffler(self, action: sc.Shuffler) -> None:
        self.log.mark(self.current, self.clock())
        self._shuffler_step(action)

    def _wait(self, action: sc.Wait) -> None:
        """Virtual time passes: the reader cycles on."""
        self.log.mark(self.current, self.clock())
        self.daemon.wait_cycles(action.cycles)

    def _floor(self, action: sc.Floor) -> None:
        """The floor's signal reaches the table: the core event the room link would make of it,
        journalled and taken in as every event (docs/deal-script.md, "The floor's signals")."""
        self.log.mark(self.current, self.clock())
        self.releases += action.signal == "release"
        self.clocks += action.signal == "clock"
        self.daemon.signal(action.event_fields(releases=self.releases, clocks=self.clocks))

    def _look(self, action: sc.Look) -> None:
        """MUCK-001: the player lifts his seat's cards off every antenna for ``seconds`` of the
        table's time (the reader cycling on), then puts them back where they lay."""
        self.log.mark(self.current, self.clock())
        seat = f"seat:{action.seat}"
        keys = {k: self.reader.uid_of(k) for k, z in self._physical.items() if z == seat}
        for key in keys:
            self.reader.remove(key)
        self.daemon.wait_cycles(action.cycles)
        for key, uid in keys.items():
            self._put(key, uid, seat)
        self._settle()

    def _lift(self, action: sc.Lift) -> None:
        """MUCK-001: a player keeps a card off the table (held out): off every antenna, not on the
        stub; the dealer lets the daemon notice it gone. A later ``move`` puts it somewhere."""
        key = self._key_of(action.card)
        uid = self._held[key] = self.reader.uid_of(key)
        self.log.mark(self.current, self.clock())
        self.reader.remove(key)
        self._physical[key] = sc.HELD
        with self._lock:
            self._watch.pop(uid, None)
        self._wait_gone()

    def _drop(self, action: sc.Drop) -> None:
        """STUB-006: the stub goes down on its spot: every card of the physical deck not out (the
        deck in play, less ``deck.missing``, plus ``deck.extra``, less the cards on the table or
        held; the spare's 52 less those out when the hand is dealt from the spare), in the deck's
        set-up order, read where an antenna lies under the spot. A table without one reads
        nothing of it."""
        self.log.mark(self.current, self.clock())
        if "stub" not in self.antenna_of:
            return
        spec = self.deck or sc.DeckSpec()
        out = {self._key_uid(k) for k in self._physical}
        # the deck the hand is dealt from: the spare when every card out names it (``As@B``, a
        # satellite on the other deck: DECK-009); ``deck`` describes the deck in play alone
        decks = {k.removesuffix("#clone").partition("@")[2] or self.deck_in_play
                 for k in self._physical if not k.startswith("tag:")}
        deck = decks.pop() if len(decks) == 1 else self.deck_in_play
        if deck != self.deck_in_play:
            gone, cards = set(), [sc.CardRef(c, deck) for c in setup_order()]
        else:
            gone = {self._uid(r) for r in spec.missing}
            cards = [sc.CardRef(c) for c in setup_order()] + list(spec.extra)
        for ref in cards:
            uid = self._uid(ref)
            if uid in gone or uid in out:
                continue
            out.add(uid)
            self._put(str(ref), uid, "stub")
        # The daemon names no card of the stub (none is the hand's), so the dealer waits on the
        # reads: a stacked stub's tags are missed now and then, and a read short of firm counts
        # for less; one read more than a card needs, in a row, before the hand goes on.
        self._settle(streak=self.confirm + 1)

    def _end(self, action: sc.End) -> None:
        had_cards = bool(self._physical)
        self.reader.clear()  # the dealer gathers every card
        self._physical.clear()
        self._held.clear()
        with self._lock:
            self._watch.clear()
        if had_cards:
            # The daemon numbers the hands it saw; a scripted hand without cards is not one.
            record = len(self.record_of) + 1
            if not self.daemon.wait_hand_finished(record, 0):
                raise SimulationError(f"{self._at()}: the daemon did not close the hand after the cards "
                                      f"were gathered")
            self.record_of[self.current[0]] = record

    #: each script action's play at the table (:meth:`play_step`); an action not named does nothing
    _PLAY: ClassVar[dict[type, Callable[[ScriptedDealer, Any], None]]] = {
        sc.Deal: _deal, sc.Muck: _muck, sc.Press: _press, sc.Move: _move, sc.Stack: _stack,
        sc.Discard: _discard, sc.Restub: _restub, sc.Unplug: _unplug, sc.Plug: _plug,
        sc.Shuffler: _shuffler, sc.Wait: _wait, sc.Floor: _floor, sc.End: _end, sc.Look: _look, sc.Lift: _lift,
        sc.Drop: _drop,
    }
