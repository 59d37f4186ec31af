"""How the table's parts raise alerts and prompt the dealer: a rule's finding becomes an alert
of the hand under way (or of the next hand, between hands), a routine instruction a prompt in the
hand's record, a notice about the table (the open seats) an alert of no hand's.

Every part raises through this one (``self._flag = table.alerts.flag``): the dealer named on an
alert, the hand that keeps it and the once-a-hand marks are decided in one place.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from controller.core.effects import Alert, Effect, Prompt
from controller.core.hand import Hand
from controller.core.rules import Finding
from controller.core.part import Part


class Alerts(Part):
    """The alerts and prompts raised between hands, kept for the next hand's record."""

    SECTION = "alerts"
    STATE = ("_pending_alerts", "_pending_prompts")
    HINTS = {"_pending_alerts": list[Alert], "_pending_prompts": list[Prompt]}

    def __init__(self, table: Any) -> None:
        super().__init__(table)
        self._pending_alerts: list[Alert] = []  # raised between hands; kept for the next hand
        self._pending_prompts: list[Prompt] = []  # told between hands (DEAL-007/008); kept likewise

    def _dealer(self) -> str | None:
        hand = self._t.dealing.hand
        return hand.dealer if hand is not None else self._t.roster.dealer

    def alert(self, out: list[Effect], alert: Alert) -> None:
        """``alert`` now, kept in the hand under way's record, else in the next hand's."""
        hand = self._t.dealing.hand
        dealer = hand.dealer if hand is not None else self._t.roster.dealer
        if dealer is not None:  # RELIEF-003: the down's log names its alerts' dealer
            alert = replace(alert, dealer=dealer)
        if hand is not None:
            hand.alerts.append(alert)
        else:
            self._pending_alerts.append(alert)
        out.append(alert)

    def flag(self, out: list[Effect], ts: float, hand: Hand | None, finding: Finding | None) -> None:
        """A rule's finding, as an alert (every flag is advisory: MISD-016). After the dealer
        declared a misdeal the hand is dead and nothing more is checked."""
        if finding is None or (hand is not None and hand.misdeal):
            return
        if finding.rule in self._t.reads.unchecked:
            # a rule this table's reader set-up cannot check (controller.core.setups): what it
            # found rests on what the reader cannot see, and is noted, not raised
            if hand is not None:
                hand.notes.append(f"{finding.rule} not checked on this table ({finding.code})")
            return
        self.alert(out, Alert(ts=finding.ts if finding.ts is not None else ts, code=finding.code,
                              audience=finding.audience, message=finding.message, rule=finding.rule,
                              seat=finding.seat, card=finding.card, hand=hand.number if hand else None,
                              count=finding.count))

    def prompt(self, out: list[Effect], ts: float, hand: Hand, finding: Finding, game: str | None = None) -> None:
        """A routine instruction to the dealer, kept in the hand's record: a Prompt, not an
        alert (a clean hand raises no alert, yet the dealer is still told what to do). ``game``:
        the game it names (MIXED-001)."""
        prompt = Prompt(ts, finding.code, finding.message, finding.rule, hand.number, seat=finding.seat,
                        count=finding.count, game=game)
        hand.prompts.append(prompt)
        out.append(prompt)

    def flag_once(self, out: list[Effect], ts: float, hand: Hand, finding: Finding | None, key: str) -> None:
        """:meth:`flag`, once a hand for each code and ``key``."""
        if finding is not None and (finding.code, key) not in hand.flagged:
            hand.flagged.add((finding.code, key))
            self.flag(out, ts, hand, finding)

    def alert_once(self, out: list[Effect], ts: float, code: str, key: str, **kw: Any) -> None:
        """An alert of ``code``, once a hand for each ``key``."""
        hand = self._t.dealing.hand
        if hand is not None:
            if (code, key) in hand.flagged:
                return
            hand.flagged.add((code, key))
        self.alert(out, Alert(ts=ts, code=code, hand=hand.number if hand else None, **kw))

    def prompt_once(self, out: list[Effect], ts: float, hand: Hand, finding: Finding, key: str) -> None:
        """:meth:`prompt`, once a hand for each code and ``key``."""
        if (finding.code, key) not in hand.flagged:
            hand.flagged.add((finding.code, key))
            self.prompt(out, ts, hand, finding)

    def prompt_now(self, out: list[Effect], ts: float, finding: Finding) -> None:
        """A prompt now: kept in the hand's record during one, else shown and kept nowhere."""
        hand = self._t.dealing.hand
        if hand is not None:
            self.prompt(out, ts, hand, finding)
        else:
            out.append(Prompt(ts, finding.code, finding.message, finding.rule, None, seat=finding.seat,
                              count=finding.count))

    def notice(self, out: list[Effect], alert: Alert) -> None:
        """A floor alert about the table, not a hand (the open seats): out now, in no record."""
        dealer = self._dealer()
        out.append(replace(alert, dealer=dealer) if dealer is not None else alert)

    # -- between hands ---------------------------------------------------------------------
    def prompt_next_hand(self, out: list[Effect], prompt: Prompt) -> None:
        """A prompt told between hands, kept in the next hand's record (DEAL-007/008)."""
        self._pending_prompts.append(prompt)
        out.append(prompt)

    def pending(self, code: str) -> bool:
        """An alert of ``code`` was raised since the last hand."""
        return any(a.code == code for a in self._pending_alerts)

    def hand_started(self, hand: Hand) -> None:
        """What was raised between hands goes into the new hand's record."""
        hand.prompts.extend(self._pending_prompts)  # DEAL-007/008: told between hands
        self._pending_prompts.clear()
        if self._pending_alerts:
            hand.alerts.extend(self._pending_alerts)
            if self.pending("deck.new_setup"):
                hand.flagged.add(("deck.new_setup", "new_setup"))  # told once, before the hand
            self._pending_alerts.clear()
