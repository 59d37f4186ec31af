"""Parser edges (issue 12): files that are not UTF-8, JSON nested 100,000 deep, numbers of 5,000
digits, in the configuration (TOML), the deck manifests, the deal scripts and the antenna map.
Each gives one clear line naming the file (and the step, for a script), never a traceback and
never the bad value whole; through the command line, each command exits 2.

The expected lines are written out here from what a technician should read; the byte offsets
are counted by hand from the inputs.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from controller.core.registry import RegistryError, parse_manifest
from controller.config.daemon import ConfigError, load_config
from controller.core.zones import ZoneError, ZoneMap
from hw_sim.decks import manifest_text
from hw_sim.script import ScriptError, parse_script
from tests.conftest import TABLECTL

DEEP = "[" * 100_000 + "]" * 100_000
DIGITS = "9" * 5000
READER = '[reader]\nport = "loop://"\n'


def one_line(msg: str, *, short: int = 400) -> str:
    assert "\n" not in msg and "Traceback" not in msg
    assert len(msg) < short, msg[:200]  # (never the 5,000 digits or the 100,000 brackets)
    return msg


# -- the configuration (TOML) -------------------------------------------------------------------

def config_error(tmp_path: Path, data: bytes) -> str:
    cfg = tmp_path / "tablectl.toml"
    cfg.write_bytes(data)
    with pytest.raises(ConfigError) as info:
        load_config(cfg)
    msg = one_line(str(info.value))
    assert msg.startswith(f"{cfg}: ")
    return msg


def test_a_configuration_not_in_utf8_names_the_line(tmp_path):
    msg = config_error(tmp_path, b'[table]\ngame = "hold\xe9m"\n' + READER.encode())
    assert msg.endswith("tablectl.toml: not UTF-8 text (line 2, column 13); save the file as UTF-8")


def test_a_configuration_nested_100000_deep(tmp_path):
    msg = config_error(tmp_path, f"{READER}[rules]\nlate_fault = {DEEP}\n".encode())
    assert msg.endswith("tablectl.toml: not valid TOML: arrays or inline tables nested too deeply")
    msg = config_error(tmp_path, f"{READER}[rules]\nlate_fault = {'{a = ' * 100_000}{'}' * 100_000}\n".encode())
    assert "nested too deeply" in msg


def test_a_configuration_with_brackets_never_closed(tmp_path):
    msg = config_error(tmp_path, f"{READER}[rules]\nlate_fault = {'[' * 100_000}\n".encode())
    assert "not valid TOML" in msg


def test_a_configuration_with_a_5000_digit_number_names_the_line(tmp_path):
    msg = config_error(tmp_path, f"{READER}address = {DIGITS}\n".encode())
    assert msg.endswith("tablectl.toml: not valid TOML: a number of more than 4300 digits on line 3")


def test_a_configuration_with_a_5000_character_key_quotes_it_short(tmp_path):
    msg = config_error(tmp_path, f'{READER}"{"x" * 5000}" = 1\n'.encode())
    assert msg.endswith("[reader] xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (5000 characters): unknown key "
                        "(see docs/configuration.md)")


def test_a_configuration_with_a_5000_character_value_quotes_it_short(tmp_path):
    msg = config_error(tmp_path, f'[table]\ngame = "{"x" * 5000}"\n{READER}'.encode())
    assert "[table] game: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (5000 characters)' is not supported" in msg


def test_a_configuration_that_never_ends_is_not_read_to_its_end(tmp_path):
    msg = config_error(tmp_path, b"# " + b"x" * (2 * 1024 * 1024))
    assert msg.endswith("tablectl.toml: not a configuration: larger than 1048576 bytes")


# -- [antennas] (controller/core/zones.py) -----------------------------------------------------------

def test_an_antenna_key_of_5000_digits_is_quoted_shortened():
    with pytest.raises(ZoneError) as info:
        ZoneMap.from_mapping({DIGITS: "board"})
    assert one_line(str(info.value)) == \
        "antenna '9999999999999999999999999999999... (5000 characters)' out of range 1..255"


def test_an_antenna_key_of_5000_digits_in_the_configuration(tmp_path):
    msg = config_error(tmp_path, f'{READER}[antennas]\n{DIGITS} = "board"\n'.encode())
    assert msg.endswith("[antennas] antenna '9999999999999999999999999999999... (5000 characters)' out of range 1..255")


@pytest.mark.parametrize("key", ["1_1", " 7", "\u0663", "-1", "x" * 5000, ""])
def test_an_antenna_key_that_is_not_plain_digits_is_refused(key):
    with pytest.raises(ZoneError, match="is not a number") as info:
        ZoneMap.from_mapping({key: "board"})
    one_line(str(info.value))


def test_a_zone_of_5000_characters_is_quoted_shortened():
    with pytest.raises(ZoneError) as info:
        ZoneMap.from_mapping({"1": "s" * 5000})
    assert one_line(str(info.value)).startswith("unknown zone 'sssssss")


def test_a_seat_led_key_of_5000_digits(tmp_path):
    msg = config_error(tmp_path, f'{READER}[console]\npin_factory = "mock"\n[console.seat_leds]\n{DIGITS} = 5\n'
                       .encode())
    assert msg.endswith("[console.seat_leds] 99999999999999999999999999999999... (5000 characters): want a seat "
                        "number 1 to 10 = its LED's pin")


# -- deck manifests (controller/core/registry.py, read by [[decks]], tablectl verify, `decks`) --------

def manifest_error(data: bytes) -> str:
    with pytest.raises(RegistryError) as info:
        parse_manifest(data, source="A.txt")
    return one_line(str(info.value))


def test_a_manifest_not_in_utf8_names_the_line():
    text = manifest_text("A").encode()
    lines = text.split(b"\n")
    lines[4] = lines[4][:16] + b" \xc3\x28s"  # (an invalid two-byte sequence where the card is)
    assert manifest_error(b"\n".join(lines)) == \
        "A.txt:5: not UTF-8 text (line 5, column 18); save the manifest as UTF-8"


def test_a_manifest_with_a_5000_digit_uid():
    assert manifest_error(f"{DIGITS} As\n".encode()) == \
        "A.txt:1: not a tag UID (want 16 hex digits (ISO 15693) or 14 (ISO 14443A), most significant byte first)"


def test_a_manifest_line_of_100000_brackets():
    assert manifest_error(DEEP.encode()) == "A.txt:1: want 'UID CARD' (two words), got 1"
    assert manifest_error(f"E0040150A05F0000 {DEEP}\n".encode()).startswith("A.txt:1: not a card")


def test_a_manifest_of_the_configuration_not_in_utf8(tmp_path):
    (tmp_path / "A.txt").write_bytes(b"E0040150A05F0000 A\xffs\n")
    msg = config_error(tmp_path, f'{READER}[[decks]]\nid = "A"\nback = "red"\nmanifest = "A.txt"\n'.encode())
    assert msg.endswith(f"[decks #1] manifest: {tmp_path / 'A.txt'}:1: not UTF-8 text (line 1, column 19); "
                        f"save the manifest as UTF-8")


def test_a_manifest_of_the_configuration_that_never_ends(tmp_path):
    msg = config_error(tmp_path, f'{READER}[[decks]]\nid = "A"\nback = "red"\nmanifest = "/dev/zero"\n'.encode())
    assert msg.endswith("[decks #1] manifest: /dev/zero: larger than 65536 bytes; a manifest is at most that")


# -- deal scripts (hw_sim/script.py) ------------------------------------------------------------

HEAD = '{"format": 1, "seats": [1, 2], "button": 2, "hands": [{"steps": [{"deal": "As", "to": "seat:1"}, '


def script_error(data: str | bytes) -> str:
    with pytest.raises(ScriptError) as info:
        parse_script(data)
    return one_line(str(info.value))


def test_a_script_not_in_utf8_names_the_step():
    data = HEAD.encode() + b'{"deal": "K\xffd", "to": "seat:2"}]}]}'
    assert script_error(data) == f"hand 1, step 2: not UTF-8 text (line 1, column {len(HEAD) + 12})"


def test_a_script_not_in_utf8_at_the_top_level():
    assert script_error(b'{"format": 1, "g\xe9me": "holdem"}') == "top level: not UTF-8 text (line 1, column 17)"


def test_a_script_nested_100000_deep_in_a_step_names_the_step():
    msg = script_error(HEAD + '{"deal": ' + DEEP + ', "to": "seat:2"}]}]}')
    assert msg.startswith("hand 1, step 2: nested more than 64 deep (line 1, column ")


def test_a_script_nested_100000_deep_at_the_top_level():
    assert script_error(DEEP).startswith("top level: nested more than 64 deep (line 1, column 65)")


def test_a_script_nested_100000_deep_in_the_second_hand():
    msg = script_error(HEAD + '{"end": true}]}, {"seats": ' + DEEP + ', "steps": []}]}')
    assert msg.startswith("hand 2: nested more than 64 deep")


def test_a_script_with_a_5000_digit_seat_names_the_step():
    msg = script_error(HEAD + '{"press": "seat_out", "seat": ' + DIGITS + '}]}]}')
    assert msg == 'hand 1, step 2: "seat" must be a seat number 1 to 10, got a number of 5000 digits'


@pytest.mark.parametrize("field,where", [("format", '"format" must be 1'), ("button", '"button" must be a seat'),
                                          ("crash_after", '"crash_after" must be a step count')])
def test_a_script_with_a_5000_digit_number_at_the_top_level(field, where):
    doc = {"format": "1", "seats": "[1, 2]", "button": "2", "hands": '[{"steps": []}]'}
    doc[field] = DIGITS
    msg = script_error("{" + ", ".join(f'"{k}": {v}' for k, v in doc.items()) + "}")
    assert msg.startswith(f"top level: {where}") and msg.endswith("got a number of 5000 digits")


def test_a_script_with_a_number_too_large_for_a_float():
    msg = script_error(HEAD + '{"press": "seat_out", "seat": 1' + "0" * 5000 + '.5}]}]}')
    assert msg == 'hand 1, step 2: "seat" must be a seat number 1 to 10, got Infinity'


def test_a_script_with_a_5000_digit_seed():
    msg = script_error('{"format": 1, "seats": [1, 2], "button": 2, "noise": {"seed": -' + DIGITS + '}, '
                       '"hands": [{"steps": []}]}')
    assert msg == 'top level: "noise.seed" must be a whole number, got a number of 5000 digits'


# -- through the command line: exit 2, one line, no traceback -------------------------------------

KINDS = ("digits", "nested", "not UTF-8")


def bad_config(kind: str) -> bytes:
    return {"not UTF-8": b"[table]\ngame = \"hold\xe9m\"\n" + READER.encode(),
            "nested": f"{READER}[rules]\nlate_fault = {DEEP}\n".encode(),
            "digits": f"{READER}address = {DIGITS}\n".encode()}[kind]


def bad_script(kind: str) -> bytes:
    return {"not UTF-8": HEAD.encode() + b'{"deal": "K\xffd", "to": "seat:2"}]}]}',
            "nested": (HEAD + '{"deal": ' + DEEP + ', "to": "seat:2"}]}]}').encode(),
            "digits": (HEAD + '{"press": "seat_out", "seat": ' + DIGITS + '}]}]}').encode()}[kind]


def bad_manifest(kind: str) -> bytes:
    return {"not UTF-8": b"E0040150A05F0000 A\xffs\n",
            "nested": f"E0040150A05F0000 {'[' * 30_000}{']' * 30_000}\n".encode(),  # (under 64 KiB)
            "digits": f"{DIGITS} As\n".encode()}[kind]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TABLECTL, *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("kind", KINDS)
def test_tablectl_run_refuses_a_bad_configuration_in_one_line(tmp_path, kind):
    cfg = tmp_path / "tablectl.toml"
    cfg.write_bytes(bad_config(kind))
    r = run("run", "--config", str(cfg))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    [line] = r.stderr.strip().splitlines()
    assert line.startswith(f"tablectl: {cfg}: ") and len(line) < 400


@pytest.mark.parametrize("kind", KINDS)
def test_tablectl_simulate_refuses_a_bad_script_in_one_line_naming_the_step(tmp_path, kind):
    script = tmp_path / "bad.json"
    script.write_bytes(bad_script(kind))
    r = run("simulate", str(script))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    [line] = r.stderr.strip().splitlines()
    assert line.startswith(f"{script}: hand 1, step 2: ") and len(line) < 400


@pytest.mark.parametrize("kind", KINDS)
def test_tablectl_verify_refuses_a_bad_manifest_in_one_line(tmp_path, kind):
    manifest = tmp_path / "A.txt"
    manifest.write_bytes(bad_manifest(kind))
    r = run("verify", "--port", "loop://", "--manifest", str(manifest), "--max-cycles", "1")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    [line] = r.stderr.strip().splitlines()
    assert line.startswith(f"tablectl verify: {manifest}:1: ") and len(line) < 400


def test_tablectl_simulate_refuses_a_script_that_never_ends(tmp_path):
    r = run("simulate", "/dev/zero")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip() == "/dev/zero: not a deal script: larger than 67108864 bytes"
