"""The ``tablectl`` command line.

- ``tablectl demo``: the daemon against a simulated table dealing random hands, with a live
  terminal view (the default when no command is given).
- ``tablectl run --config FILE``: the daemon proper.
- ``tablectl simulate SCRIPT [--json]``: play a deal script through the simulated devices.
- ``tablectl tags --driver feig --port URL``: the installer's tool, one line per tag read.
- ``tablectl register --port URL --deck A --back red --out A.txt``: register a deck.
- ``tablectl verify --port URL --manifest A.txt --manifest B.txt``: check a deck before play.
- ``tablectl history --config FILE [--jsonl]``: the finished hands in the journal.
- ``tablectl doctor [--config FILE]``: check a Pi's setup (configuration, devices, journal, GPIO, the
  room link's files and broker); ``--floor FILE``: the floor service's instead.
- ``tablectl calibrate [--config FILE]``: each antenna's RSSI level, a card laid on each in turn.
- ``tablectl floor [--config FILE]``: the floor's service and web page (docs/floor.md);
  ``tablectl floor adduser NAME --role floor|technician|viewer``: its accounts;
  ``tablectl floor setup``: install the floor's service (and the broker's set-up, ``--mosquitto``).
- ``tablectl setup``: set a table's Pi up in one command (docs/install.md).
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from typing import Any

from controller.daemon.startup import daemon_config, setup_logging
from controller.core.games import GAMES
from controller.core.mixed import PRESETS


def cmd_run(args: argparse.Namespace) -> int:
    from controller.daemon.main import Daemon  # (a command loads its own modules only (start-up on a Pi))
    from controller.daemon.journal import JournalError  # (a command loads its own modules only (start-up on a Pi))

    config = daemon_config(args.config)
    if config is None:
        return 2
    daemon = Daemon(config)
    if not config.decks:
        logging.getLogger("tablectl.daemon").warning(
            "daemon: no [[decks]] registered: every tag will be a foreign card")
    stop = threading.Event()

    def on_signal(signum, frame):  # type: ignore[no-untyped-def]
        stop.set()
        daemon._stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        daemon.start()
    except JournalError as exc:  # one line with the fix; the unit does not restart on 2
        print(f"tablectl: {exc}", file=sys.stderr)
        daemon.stop()
        return 2
    except OSError as exc:  # an output that cannot be opened: say which, and stop
        print(f"tablectl: {config.path}: [outputs]: cannot open {exc.filename or ''}: {exc.strerror or exc}",
              file=sys.stderr)
        daemon.stop()
        return 2
    try:
        daemon.run()
    finally:
        daemon.stop()
        logging.getLogger("tablectl.daemon").info("daemon: stopped")
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from hw_sim import simulate  # (the simulator, loaded only by its two commands)

    return simulate.main(args.script, as_json=args.json, keep=args.keep, broker=args.broker, room=args.room,
                         table=args.table, rotation=args.rotation, change=args.change, username=args.username,
                         password_file=args.password_file, ca_file=args.ca_file, signing_key=args.signing_key,
                         reader=args.reader)


def cmd_demo(args: argparse.Namespace) -> int:
    from hw_sim import demo  # (the simulator, loaded only by its two commands)

    return demo.main(hands=args.hands, seed=args.seed, game=args.game, plain=args.plain, speed=args.speed,
                     faults=args.faults, reader=args.reader)


def cmd_tags(args: argparse.Namespace) -> int:
    from controller.cli import tags  # (a command loads its own modules only (start-up on a Pi))

    return tags.main(driver=args.driver, port=args.port, single_antenna=args.single_antenna,
                     cycles=args.cycles, baudrate=args.baudrate, parity=args.parity,
                     antennas=args.antennas)


def cmd_register(args: argparse.Namespace) -> int:
    from controller.cli import register  # (a command loads its own modules only (start-up on a Pi))

    return register.main(port=args.port, deck=args.deck, back=args.back, out=args.out,
                         baudrate=args.baudrate, parity=args.parity, antenna=args.antenna,
                         max_cycles=args.max_cycles, driver=args.driver)


def cmd_room_enroll(args: argparse.Namespace) -> int:
    from controller.room import enroll  # (a command loads its own modules only (start-up on a Pi))

    return enroll.main(args.table, args.room, args.dir, cert=args.cert, ca_cert=args.ca_cert, ca_key=args.ca_key,
                       bundle=args.bundle, broker=args.broker, ca_file=args.ca_file, mosquitto=args.mosquitto,
                       floor_config=args.floor_config)


def cmd_setup(args: argparse.Namespace) -> int:
    from controller.cli.setup import table  # (a command loads its own modules only (start-up on a Pi))

    return table.main({"root": args.root, "dry_run": args.dry_run, "remove": args.remove, "purge": args.purge,
                       "doctor": not args.no_doctor, "answers": args.answers, "reader": args.reader,
                       "seats": args.seats, "game": args.game, "display": args.display, "room_bundle": args.room_bundle,
                       "reader_serial": args.reader_serial, "shuffler_serial": args.shuffler_serial})


def cmd_floor(args: argparse.Namespace) -> int:
    if args.floor_command == "setup":
        from controller.cli.setup import floor as floor_setup  # (a command loads its own modules only)

        return floor_setup.main({"root": args.root, "dry_run": args.dry_run, "remove": args.remove,
                                 "purge": args.purge, "doctor": not args.no_doctor, "answers": args.answers,
                                 "broker": args.broker, "room": args.room, "ca_file": args.ca_file, "user": args.user,
                                 "role": args.role, "mosquitto": args.mosquitto, "broker_name": args.broker_name,
                                 "broker_ip": args.broker_ip})
    from controller.floor import main as floor  # (a command loads its own modules only: aiohttp for the floor alone)

    if args.floor_command == "adduser":
        return floor.adduser(args.config, args.name, args.role)
    setup_logging("info")
    return floor.run(args.config)


def cmd_history(args: argparse.Namespace) -> int:
    from controller.cli import history  # (a command loads its own modules only (start-up on a Pi))

    return history.main(config=args.config, since=args.since, jsonl=args.jsonl, out=args.out)


def cmd_verify(args: argparse.Namespace) -> int:
    from controller.cli import verify  # (a command loads its own modules only (start-up on a Pi))

    return verify.main(port=args.port, manifests=args.manifest, baudrate=args.baudrate, parity=args.parity,
                       antenna=args.antenna, settle=args.settle, max_cycles=args.max_cycles, driver=args.driver)


def cmd_display(args: argparse.Namespace) -> int:
    from controller.cli import display_preview  # (a command loads its own modules only (start-up on a Pi))

    return display_preview.main(args.preview)


def cmd_calibrate(args: argparse.Namespace) -> int:
    from controller.cli import calibrate  # (a command loads its own modules only (start-up on a Pi))

    return calibrate.main(args.config, cycles=args.cycles, margin=args.margin, write=not args.dry_run)


def cmd_doctor(args: argparse.Namespace) -> int:
    from controller.cli import doctor  # (a command loads its own modules only (start-up on a Pi))

    return doctor.main(args.config, user=args.user, open_ports=not args.no_open, floor=args.floor)


def _antenna(text: str) -> int:
    """An antenna number a two-byte ANT_SEL can select: 1 to 16."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an antenna number") from None
    if not 1 <= value <= 16:
        raise argparse.ArgumentTypeError(f"antennas are numbered 1 to 16, got {value}")
    return value


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


def _whole(text: str, least: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be {what}, got {text}")
    return value


def _every(text: str) -> int:
    """``--faults``: a whole number, 0 (none) or more."""
    return _whole(text, 0, "0 (none) or more")


def _count(text: str) -> int:
    return _whole(text, 1, "1 or more")


#: the readers' drivers (firmware_bridge.drivers.READERS, written out: the parser loads no driver;
#: tests/unit/cli/test_bridge_cli.py checks they are the same)
READER_CHOICES = ("feig", "bridge")
#: the simulated readers of simulate and demo (hw_sim.readers.READER_DEVICES): the drivers, and the
#: cheap set-up of two-card seat spots and no muck antenna (hw_sim/spots_reader.py)
SIM_READERS = (*READER_CHOICES, "spots")
COMMANDS = ("run", "simulate", "demo", "tags", "register", "verify", "history", "doctor", "room", "display",
            "floor", "calibrate", "setup")


class DefaultsHelp(argparse.ArgumentDefaultsHelpFormatter):
    """Each option's help with its default, as ``ArgumentDefaultsHelpFormatter`` gives it, but not
    for a default of None: such an option's help says itself what its absence means ("stop after N
    hands (default: forever)"), and "(default: None)" after it would contradict it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None:
            return action.help
        return super()._get_help_string(action)


class VersionAction(argparse.Action):
    """``--version``: the installed package's version, looked up when asked for only.
    importlib.metadata loads email, zipfile, csv and the like (some 15 ms here, several times
    that on a Pi): every command paid it at start-up, the password checks' process the floor
    spawns (controller/floor/hashing.py) included, for a flag seldom given."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str = "show program's version number and exit") -> None:
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        from importlib.metadata import PackageNotFoundError, version  # (asked for: see the class)

        try:
            ver = version("tablectl")
        except PackageNotFoundError:  # run from a source tree that was not installed
            ver = "unknown"
        print(f"tablectl {ver}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tablectl", formatter_class=DefaultsHelp,
        description="Integrity controller for a poker table. With no command, runs the demo.")
    p.add_argument("--version", action=VersionAction)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    fmt = {"formatter_class": DefaultsHelp}
    r = sub.add_parser("run", help="run the daemon", **fmt)
    r.add_argument("--config", required=True, help="the TOML configuration file")
    r.set_defaults(fn=cmd_run)

    s = sub.add_parser("simulate", help="play a deal script through the simulated table", **fmt)
    s.add_argument("script", help="the deal script (JSON, see docs/deal-script.md)")
    s.add_argument("--json", action="store_true", help="print the report as JSON")
    s.add_argument("--keep", action="store_true", help="keep the work folder (config, feed, daemon log)")
    s.add_argument("--broker", help="with the room link on, to this MQTT broker (docs/room.md); waits up to "
                                    "30 s for its acknowledgements at the end, else exit status 3")
    s.add_argument("--room", default="sim", help="the room's name on the broker (with --broker)")
    s.add_argument("--table", default="t1", help="the table's name on the broker (with --broker)")
    s.add_argument("--username", default=None, help="the table's broker user (with --broker), as [room] username")
    s.add_argument("--password-file", default=None,
                   help="a file holding that user's password on its first line (0600), as [room] password_file")
    s.add_argument("--ca-file", default=None, help="the room CA's certificate for mqtts:// (as [room] ca_file)")
    s.add_argument("--signing-key", default=None,
                   help="the table's signing key, TABLE.signing-key from tablectl room enroll (0600), as [room] "
                        "signing_key: its records signed, for a floor that requires signatures")
    s.add_argument("--rotation", default=None, help="deal on a mixed game's configuration (MIXED-001): "
                   "horse, 8game, or games joined by commas (holdem,razz,stud)")
    s.add_argument("--change", default=None, help="with --rotation: orbit (the default) or the hands of each game")
    s.add_argument("--reader", choices=SIM_READERS, default="feig",
                   help="the simulated reader: a FEIG reader, our bridge board (its firmware on simulated "
                        "PN5180s, docs/protocols/bridge.md), or spots: two-card seat spots and no muck antenna "
                        "(docs/rules.md, \"What each reader set-up can check\")")
    s.set_defaults(fn=cmd_simulate)

    d = sub.add_parser("demo", help="the daemon against a simulated table dealing random hands (the default)",
                       **fmt)
    d.add_argument("--hands", type=_count, default=None, help="stop after N hands (default: forever)")
    d.add_argument("--seed", type=int, default=None, help="the same seed deals the same hands (default: random)")

    d.add_argument("--game", choices=(*(g.name for g in GAMES), *PRESETS), default="holdem",
                   help="the game dealt, or a mixed game's rotation (horse, 8game: MIXED-001)")
    d.add_argument("--plain", action="store_true", help="print a line per hand instead of the live view")
    d.add_argument("--speed", type=_positive, default=1.0,
                   help="how fast the simulated dealer deals (1: about two cards a second)")
    d.add_argument("--faults", type=_every, default=6, metavar="N",
                   help="deal a fault (a wrong seat, a foreign card, a missing burn) in one hand in N, "
                        "on average; 0: none")
    d.add_argument("--reader", choices=SIM_READERS, default="feig",
                   help="the simulated reader: a FEIG reader, our bridge board (its firmware on simulated PN5180s), "
                        "or spots (two-card seat spots, no muck antenna)")
    d.set_defaults(fn=cmd_demo)

    t = sub.add_parser("tags", help="print every tag a reader reads: ANTENNA UID RSSI", **fmt)
    t.add_argument("--driver", choices=READER_CHOICES, default="feig", help="the reader's protocol")
    t.add_argument("--port", required=True, help="a pyserial URL or device path")
    t.add_argument("--single-antenna", action="store_true",
                   help="inventory without antenna information (a one-antenna registration reader)")
    t.add_argument("--cycles", type=int, default=1, help="inventory cycles to run (0: until interrupted)")
    t.add_argument("--baudrate", type=int, default=38400, help="the reader's baud rate")
    t.add_argument("--parity", choices=("N", "E", "O"), default="E", help="the reader's parity")
    t.add_argument("--antennas", default="1-13", help="antennas to scan, e.g. 1-13 or 1,2,11")
    t.set_defaults(fn=cmd_tags)

    g = sub.add_parser("register", help="register a deck read in set-up order over one antenna", **fmt)
    g.add_argument("--driver", choices=READER_CHOICES, default="feig", help="the reader's protocol")
    g.add_argument("--port", required=True, help="the registration reader: a pyserial URL or device path")
    g.add_argument("--deck", required=True, help="the deck's id, e.g. A")
    g.add_argument("--back", required=True, help="the deck's back colour")
    g.add_argument("--out", required=True, help="the manifest file to write")
    g.add_argument("--antenna", type=_antenna, default=None,
                   help="read only this antenna of a multiplexed reader (default: a single-antenna reader)")
    g.add_argument("--baudrate", type=int, default=38400, help="the reader's baud rate")
    g.add_argument("--parity", choices=("N", "E", "O"), default="E", help="the reader's parity")
    g.add_argument("--max-cycles", type=int, default=0, help=argparse.SUPPRESS)
    g.set_defaults(fn=cmd_register)

    v = sub.add_parser("verify", help="check a registered deck read whole over one antenna (DECK-001/002)", **fmt)
    v.add_argument("--driver", choices=READER_CHOICES, default="feig", help="the reader's protocol")
    v.add_argument("--port", required=True, help="the registration reader: a pyserial URL or device path")
    v.add_argument("--manifest", required=True, action="append",
                   help="PATH[:ID]: the deck to verify; repeat for the table's other deck, to name its cards")
    v.add_argument("--antenna", type=_antenna, default=None,
                   help="read only this antenna of a multiplexed reader (default: a single-antenna reader)")
    v.add_argument("--settle", type=int, default=10, help="cycles without a new tag before the count is made")
    v.add_argument("--baudrate", type=int, default=38400, help="the reader's baud rate")
    v.add_argument("--parity", choices=("N", "E", "O"), default="E", help="the reader's parity")
    v.add_argument("--max-cycles", type=int, default=0, help=argparse.SUPPRESS)
    v.set_defaults(fn=cmd_verify)

    h = sub.add_parser("history", help="list or export the finished hands in the journal", **fmt)
    h.add_argument("--config", default="/etc/tablectl/tablectl.toml", help="the daemon's configuration")
    h.add_argument("--since", default=None, help="only hands ended since this date/time (ISO 8601)")
    h.add_argument("--jsonl", action="store_true", help="one JSON record per line, with its alerts")
    h.add_argument("--out", default=None, help="write to this file (mode 0600) instead of standard output")
    h.set_defaults(fn=cmd_history)

    dr = sub.add_parser("doctor", help="check the configuration, devices, journal and GPIO; say how to fix", **fmt)
    dr.add_argument("--config", default="/etc/tablectl/tablectl.toml", help="the TOML configuration file")
    dr.add_argument("--user", default=None,
                    help="judge access for this user; unset: the caller, or tablectl when run as root")
    dr.add_argument("--no-open", action="store_true", help="do not open the serial ports")
    dr.add_argument("--floor", default=None, metavar="FILE",
                    help="check the floor service's configuration instead (its files, database and broker)")
    dr.set_defaults(fn=cmd_doctor)

    ca = sub.add_parser("calibrate", help="each antenna's RSSI level, a card laid on each in turn; "
                                          "written to [reader.levels]", **fmt)
    ca.add_argument("--config", default="/etc/tablectl/tablectl.toml", help="the TOML configuration file")
    ca.add_argument("--cycles", type=_count, default=20, help="inventories read per antenna")
    ca.add_argument("--margin", type=_count, default=50, help="the level: the card's median RSSI less this")
    ca.add_argument("--dry-run", action="store_true", help="print the levels; do not write them")
    ca.set_defaults(fn=cmd_calibrate)

    dp = sub.add_parser("display", help="the dealer's display's screens (docs/console.md, \"The display\")", **fmt)
    dp.add_argument("--preview", required=True, metavar="DIR",
                    help="write every screen of every layout as PNG files under DIR")
    dp.set_defaults(fn=cmd_display)

    rm = sub.add_parser("room", help="the room link's tools (docs/room.md)", **fmt)
    rsub = rm.add_subparsers(dest="room_command", metavar="ROOM_COMMAND", required=True)
    en = rsub.add_parser("enroll", help="make a table's broker password; print its password-file and ACL lines",
                         **fmt)
    en.add_argument("table", help="the table's name ([room] table)")
    en.add_argument("--room", required=True, help="the room's name ([room] room)")
    en.add_argument("--dir", default=".", help="the folder the table's password file is written to")
    en.add_argument("--cert", action="store_true", help="a client certificate from the room's CA instead of a password")
    en.add_argument("--ca-cert", help="with --cert: the room CA's certificate")
    en.add_argument("--ca-key", help="with --cert: the room CA's key")
    en.add_argument("--bundle", metavar="FILE", default=None,
                    help="also write the table's bundle (0600) for `tablectl setup --room-bundle FILE` on its Pi")
    en.add_argument("--broker", default=None, help="the broker as the tables reach it (mqtts://HOST:8883); "
                                                   "needed with --bundle")
    en.add_argument("--ca-file", default=None, help="with --bundle: the room CA's certificate, put in the bundle")
    en.add_argument("--mosquitto", action="store_true",
                    help="on the broker's host: append the table's lines to /etc/mosquitto/tablectl.passwd and "
                         "tablectl.acl (then: systemctl reload mosquitto)")
    en.add_argument("--floor-config", metavar="PATH", default=None,
                    help="also put the table's public key into this floor configuration's [floor.tables] (its "
                         "owner and mode kept; refused if it has another key for the table), e.g. "
                         "/etc/tablectl/floor.toml where the floor runs on this host")
    en.set_defaults(fn=cmd_room_enroll)

    fl = sub.add_parser("floor", help="the floor's service: every table live in a browser (docs/floor.md)", **fmt)
    fl.add_argument("--config", default="/etc/tablectl/floor.toml", help="the floor's TOML configuration ([floor])")
    fsub = fl.add_subparsers(dest="floor_command", metavar="FLOOR_COMMAND")
    au = fsub.add_parser("adduser", help="add a user (or set its role and password); the password from stdin",
                         **fmt)
    au.add_argument("name", help="the user's name")
    au.add_argument("--role", required=True, choices=("floor", "technician", "viewer"), help="what the user sees")
    au.add_argument("--config", default=argparse.SUPPRESS, help="the floor's TOML configuration ([floor])")
    # (no "(default: ...)" added: setup's defaults are the answers of its last run, said in its help)
    fs = fsub.add_parser("setup", help="install the floor's service: unit, folders, configuration, first user; with "
                                        "--mosquitto the broker's set-up too (docs/floor.md)")
    _setup_options(fs)
    fs.add_argument("--broker", default=None, help="the room's broker, mqtts://HOST:8883")
    fs.add_argument("--room", default=None, help="the room to follow (default: every room, \"+\")")
    fs.add_argument("--ca-file", default=None,
                    help="the room CA's certificate (installed as /etc/tablectl/room-ca.crt)")
    fs.add_argument("--user", default=None, help="the first floor user (its password read once, or from stdin)")
    fs.add_argument("--role", default=None, choices=("floor", "technician", "viewer"), help="its role (default: floor)")
    fs.add_argument("--mosquitto", action="store_true",
                    help="on the broker's host: mosquitto's configuration, ACL, passwords and TLS from docs/room/")
    fs.add_argument("--broker-name", default=None, help="with --mosquitto: the broker's host name (its certificate's)")
    fs.add_argument("--broker-ip", default=None, action="append",
                    help="with --mosquitto: an address in its certificate")
    fl.set_defaults(fn=cmd_floor)

    st = sub.add_parser("setup", help="set this Pi up as a table: user, folders, udev rules, unit, configuration; "
                                      "ends with doctor (docs/install.md)",
                        description="Set this Pi up as a table (docs/install.md). An option left out takes the "
                                    "answers file's value, else the last run's (/var/lib/tablectl-setup/table.toml), "
                                    "else the default said below.")
    _setup_options(st)
    st.add_argument("--reader", default=None, choices=("feig", "bridge"),
                    help="feig: the FEIG reader, cards shuffled by hand; bridge: the FEIG reader and the shuffler's "
                         "bridge board (default: feig)")
    st.add_argument("--seats", default=None, help="the seats dealt in, e.g. 1-9 or 1,2,4 (default: 1-9)")
    st.add_argument("--game", default=None, help="the game (docs/games.md; default: holdem)")
    st.add_argument("--display", default=None, choices=("auto", "none", "hd44780", "ssd1306", "sh1106"),
                    help="the dealer's display (default: auto, whatever answers on /dev/i2c-1)")
    st.add_argument("--room-bundle", default=None, metavar="FILE",
                    help="the table's bundle from `tablectl room enroll --bundle`: its password, key, CA and [room]")
    st.add_argument("--reader-serial", default=None, help="which FTDI device is the reader (its serial number)")
    st.add_argument("--shuffler-serial", default=None, help="which CDC-ACM device is the bridge board")
    st.set_defaults(fn=cmd_setup)
    return p


def _setup_options(p: argparse.ArgumentParser) -> None:
    """What ``setup`` and ``floor setup`` share."""
    p.add_argument("--answers", default=None, metavar="FILE", help="the answers, for an unattended install (TOML)")
    p.add_argument("--dry-run", action="store_true", help="print every file and command, in order; write nothing")
    p.add_argument("--root", default=None, metavar="DIR", help="write into DIR instead of / (as systemd's tools do)")
    p.add_argument("--remove", action="store_true",
                   help="undo: the unit, the rules, the links (the configuration, journal and decks are kept)")
    p.add_argument("--purge", action="store_true", help="with --remove: the configuration and secrets too")
    p.add_argument("--no-doctor", action="store_true", help="do not run doctor at the end")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and not argv[0].startswith("-") and argv[0] not in COMMANDS:
        parser.error(f"unknown command {argv[0]!r} (commands: {', '.join(COMMANDS)})")
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help", "--version")):
        argv = ["demo", *argv]  # the embedded default: the demo
    args = parser.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
