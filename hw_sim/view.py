"""The demo's live terminal view (rich), and a plain line-per-hand variant for logs and pipes."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any
from controller.core.display import render as words

if TYPE_CHECKING:  # pragma: no cover
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    from hw_sim.demo import Demo

SUIT_GLYPH = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}


def pretty(card: str) -> str:
    """``"Th"`` -> ``"T♥"``; foreign labels are shown as they are."""
    if len(card) == 2 and card[1] in SUIT_GLYPH:
        return card[0] + SUIT_GLYPH[card[1]]
    return card


LED_GLYPH = {"off": ("○", "dim"), "on": ("●", ""), "blink_slow": ("◉ slow", "blink"), "blink_fast": ("◉ fast", "blink")}
LED_COLOUR = {"ready": "green", "prompt": "yellow", "alert": "red"}


def console_view(demo: Demo) -> dict[str, Any] | None:
    """The dealer's console as its pins are now: each LED's mode, the last buzz, the prompt."""
    sink = demo.daemon.console
    if sink is None:
        return None
    console = sink.console
    modes = console.modes() if console is not None else {}
    buzz = console.last_buzz if console is not None else None
    return {"modes": modes, "buzz": buzz, "state": sink.state, "open": console is not None}


def console_line(view: dict[str, Any] | None, since: float | None = None) -> str:
    """One short line: ``console  ready on · prompt off · alert off · seat 1 · buzzer silent``;
    a buzz after ``since`` (time.monotonic()) is named."""
    if view is None:
        return "console  none"
    if not view["open"]:
        return "console  offline"
    m = view["modes"]
    lit = [k[5:] for k, v in m.items() if k.startswith("seat ") and v != "off"]
    parts = [f"{k} {m[k]}" for k in ("ready", "prompt", "alert") if k in m]
    parts.append(f"seat {','.join(lit) or '-'}")
    buzz = view["buzz"]
    parts.append(f"buzzer {buzz[0]}" if buzz and (since is None or buzz[1] > since) else "buzzer silent")
    if view["state"].code:
        parts.append(view["state"].code)
    return "console  " + " · ".join(parts) + "\n  display  " + " | ".join(display_screen(view["state"], "lcd16x2"))


def display_screen(state: Any, layout: str = "lcd20x4") -> list[str]:
    """The dealer's display's screen for the console's state, as a display of ``layout`` shows it
    (the demo has no I2C display: the same words, controller/core/display.py)."""

    return words(state, layout)


def _colour(card: str) -> Text:
    """A card as the live view shows it: its suit's glyph, red for hearts and diamonds."""
    from rich.text import Text  # (rich is the demo extra's: loaded only for the live view)

    red = len(card) == 2 and card[1] in "hd"
    return Text(pretty(card), style="bold red" if red else "bold")


def _card_row(cards: list[str], empty: Text) -> Text:
    """Cards side by side, or ``empty`` when there are none."""
    from rich.text import Text  # (rich is the demo extra's: loaded only for the live view)

    return Text(" ").join(_colour(c) for c in cards) or empty


def _led(name: str, mode: str) -> Text:
    """A console LED (``name``) in ``mode``, in its colour when lit."""
    from rich.text import Text  # (rich is the demo extra's: loaded only for the live view)

    glyph, style = LED_GLYPH[mode]
    return Text(glyph, style=f"{LED_COLOUR.get(name, 'yellow')} {style}".strip() if mode != "off" else style)


def _seat_marks(seat: int, button: int | None, next_to: str | None, seat_leds: dict[int, str]) -> Text:
    """A seat's marks: the button, the card due next, its LED when lit."""
    from rich.text import Text  # (rich is the demo extra's: loaded only for the live view)

    marks = []
    if seat == button:
        marks.append("[D]")
    if next_to == f"seat:{seat}":
        marks.append("← next")
    row = Text(" ".join(marks))
    if seat_leds.get(seat, "off") != "off":
        row = Text.assemble(_led("seat", seat_leds[seat]), " LED ", row)
    return row


def _seats_table(seats: list[int], zones: dict[str, list[str]], button: int | None, next_to: str | None,
                 cview: dict[str, Any] | None) -> Table:
    """The seats and their hole cards (the private view), with their marks."""
    from rich.table import Table  # (rich is the demo extra's: loaded only for the live view)
    from rich.text import Text  # (rich is the demo extra's: loaded only for the live view)

    seat_leds = {int(k[5:]): v for k, v in (cview["modes"] if cview else {}).items() if k.startswith("seat ")}
    table = Table(title="Seats", expand=True, show_edge=False)
    table.add_column("seat", justify="right")
    table.add_column("cards")
    table.add_column("")
    for s in seats:
        cards = _card_row(zones.get(f"seat:{s}", []), Text("·", style="dim"))
        table.add_row(str(s), cards, _seat_marks(s, button, next_to, seat_leds))
    return table


def _table_grid(hand: dict[str, Any] | None, zones: dict[str, list[str]], next_to: str | None) -> Table:
    """The middle of the table: the board, the burns, the muck, and the hand's stub and street."""
    from rich.table import Table  # (rich is the demo extra's: loaded only for the live view)
    from rich.text import Text  # (rich is the demo extra's: loaded only for the live view)

    middle = Table.grid(padding=(0, 2))
    middle.add_column(style="dim")
    middle.add_column()
    middle.add_row("board", _card_row(zones.get("board", []), Text("·")))
    middle.add_row("burns", _card_row(zones.get("burn", []), Text("·")))
    middle.add_row("muck", Text(f"{len(zones.get('muck', []))} cards"))
    if hand:
        middle.add_row("stub", Text(f"{hand['stub_count']}  (52 − {52 - hand['stub_count']} out)", style="bold"))
        middle.add_row("street", Text(f"{hand['street']}   next: {next_to or '—'}"))
        if hand.get("first_to_act"):
            middle.add_row("action", Text(f"seat {hand['first_to_act']} first   {hand['players']} players"))
    else:
        middle.add_row("stub", Text("52 (between hands)"))
    return middle


def _health_grid(stats: Any, snap: dict[str, Any], records: list[dict[str, Any]]) -> Table:
    """The reader's health and the hands finished, the last one's summary."""
    from rich.table import Table  # (rich is the demo extra's: loaded only for the live view)
    from rich.text import Text  # (rich is the demo extra's: loaded only for the live view)

    health = Table.grid(padding=(0, 2))
    health.add_column(style="dim")
    health.add_column()
    online = Text("online", style="green") if stats.online else Text("OFFLINE", style="bold red")
    health.add_row("reader", online)
    health.add_row("reads/s", f"{stats.reads_per_second():,.0f}")
    health.add_row("cycles", f"{stats.cycles:,}")
    health.add_row("corrupt frames", str(stats.frames_bad))
    health.add_row("reconnects", str(stats.reconnects))
    health.add_row("hands", f"{snap['hands_finished']} finished")
    if records:
        last = records[-1]
        health.add_row("last hand", f"#{last['hand']}: stub {last['stub_count']}, "
                       f"{len(last['alerts']) or 'no'} alert{'' if len(last['alerts']) == 1 else 's'}")
    return health


def _alerts_text(alerts: list[Any]) -> Text:
    """The last alerts, one a line, coloured by audience."""
    from rich.text import Text  # (rich is the demo extra's: loaded only for the live view)

    alert_text = Text()
    for a in alerts:
        style = {"floor": "magenta", "dealer": "yellow"}.get(a.audience, "")
        alert_text.append(f"{time.strftime('%H:%M:%S', time.localtime(a.ts))} {a.audience:6} "
                          f"{a.code} ({a.rule or '-'})\n", style=style)
    if not alerts:
        alert_text.append("none: every hand clean", style="green")
    return alert_text


def _console_text(cview: dict[str, Any] | None) -> Text:
    """The dealer's console: its LEDs, its buzzer, the prompt and the display's screen."""
    from rich.text import Text  # (rich is the demo extra's: loaded only for the live view)

    panel = Text()
    if cview is None or not cview["open"]:
        panel.append("no console" if cview is None else "console offline", style="dim")
        return panel
    for name in ("ready", "prompt", "alert"):
        if name in cview["modes"]:
            panel.append_text(Text.assemble(f"{name} ", _led(name, cview["modes"][name]), "   "))
    buzz = cview["buzz"]
    recent = buzz is not None and time.monotonic() - buzz[1] < 3
    panel.append(f"buzzer {buzz[0] if recent else 'silent'}", style="bold red" if recent else "dim")
    st = cview["state"]
    if st.code:
        more = f"  (+{st.waiting - 1} waiting)" if st.waiting > 1 else ""
        panel.append(f"\n{st.code}: {st.message}{more}", style="yellow")
    _append_display(panel, st)
    return panel


def _append_display(panel: Text, state: Any) -> None:
    """The dealer's display (docs/console.md, "The display"), a 20x4 LCD's screen, boxed."""
    panel.append("\ndisplay  ┌" + "─" * 20 + "┐", style="dim")
    for line in display_screen(state):
        panel.append("\n         │", style="dim")
        panel.append(line.ljust(20), style="bold white on blue")
        panel.append("│", style="dim")
    panel.append("\n         └" + "─" * 20 + "┘", style="dim")


def render(demo: Demo) -> Panel:
    """One frame of the live view as a rich renderable."""
    from rich.console import Group  # (rich is the demo extra's: loaded only for the live view)
    from rich.panel import Panel  # (rich is the demo extra's: loaded only for the live view)
    from rich.table import Table  # (rich is the demo extra's: loaded only for the live view)
    from rich.text import Text  # (rich is the demo extra's: loaded only for the live view)

    snap = demo.daemon.snapshot()
    stats = demo.daemon.reader.stats
    hand = snap["hand"]
    zones: dict[str, list[str]] = hand["zones"] if hand else {}
    next_to = hand["next_to"] if hand else None
    cview = console_view(demo)
    seats = _seats_table(snap["seats"], zones, hand["button"] if hand else snap["button"], next_to, cview)
    middle = _table_grid(hand, zones, next_to)
    health = _health_grid(stats, snap, list(demo.view.records))
    alert_text = _alerts_text(list(demo.view.alerts)[-6:])
    panel = _console_text(cview)
    game = hand["game"] if hand else snap["game"]  # (a mixed game's changes: MIXED-001)
    title = f"tablectl demo — {game}, hand {hand['number'] if hand else snap['hands_finished'] + 1}"
    top = Table.grid(expand=True)
    top.add_column(ratio=3)
    top.add_column(ratio=2)
    top.add_row(Panel(seats, title="hole cards (private view)"), Panel(Group(middle, Text(""), health),
                                                                       title="table & reader"))
    return Panel(Group(top, Panel(panel, title="dealer's console (LEDs, buzzer, display)"),
                       Panel(alert_text, title="alerts")), title=title)


def run_live(demo: Demo, dealer: threading.Thread) -> None:
    from rich.live import Live  # (rich is the demo extra's: loaded only for the live view)

    with Live(render(demo), refresh_per_second=8, screen=False) as live:
        while dealer.is_alive():
            live.update(render(demo))
            dealer.join(0.12)
        live.update(render(demo))


def summary_line(record: dict[str, Any]) -> str:
    zones = record["zones"]
    seats = "  ".join(f"{z[5:]}:{''.join(pretty(c) for c in cards)}" for z, cards in zones.items()
                      if z.startswith("seat:"))
    board = " ".join(pretty(c) for c in zones.get("board", []))
    alerts = ", ".join(a["code"] for a in record["alerts"]) or "clean"
    return (f"hand {record['hand']:>4}  {record['game']:<14}  button {record['button']:>2}  board [{board:<14}]  "
            f"burns {len(zones.get('burn', []))}  muck {len(zones.get('muck', []))}  "
            f"stub {record['stub_count']:>2}  {alerts}  | {seats}")


def run_plain(demo: Demo, dealer: threading.Thread) -> None:
    printed = 0
    since = time.monotonic()
    while True:
        records = list(demo.view.records)
        finished = len(demo.view.finished)  # (the console has seen the hand end before this view)
        for rec in records[len(records) - (finished - printed):] if finished > printed else []:
            print(summary_line(rec), flush=True)
        if finished > printed and demo.daemon.console is not None:
            print("  " + console_line(console_view(demo), since), flush=True)
            since = time.monotonic()
        printed = finished
        if not dealer.is_alive():
            break
        dealer.join(0.1)
    stats = demo.daemon.reader.stats
    print(f"reader: {stats.cycles} cycles, {stats.reads} reads, {stats.frames_bad} corrupt frames, "
          f"{stats.reconnects} reconnects", flush=True)
