"""Every message the floor refuses is counted and said (issue 38): the service's side of
``Store.refuse`` (controller/floor/app.py, ``FloorService.on_message``), in process, without a
broker: each malformed payload counted on its table's tile and logged by table and topic, never
its text; what the store's checks would miss counted too; a topic of no table said once a while."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from controller.config.floor import parse_floor_text
from controller.floor.app import FloorService

T = "tablectl/main/t7/"
#: (topic, payload, the reason logged): the issue's malformed payloads, each with a marker that must
#: never reach the log
MALFORMED = [
    ("events/floor", b'{"card": "MARK-1", ', "events/floor: not JSON (Expecting"),
    ("hands", b'{"card": "MARK-2 \xc3\x28"}', "hands: not UTF-8 text (byte 17)"),
    ("events/dealer", b'{"seq": NaN, "card": "MARK-3"}', "events/dealer: not JSON the floor takes (NaN is not JSON)"),
    ("events/floor", b'{"card": "MARK-4", "card": "MARK-5"}',
     "events/floor: not JSON the floor takes (a key given twice)"),
    ("state", b'{"card": "MARK-6", "x": ' + b"[" * 3000 + b"]" * 3000 + b"}",
     "state: not JSON the floor can read (nested too deep)"),
    ("cmd/reply", b'["MARK-7"]', "cmd/reply: not a JSON object (a list)"),
    ("events/floor", b"7777777771", "events/floor: not a JSON object (a number)"),
    ("events/floor", b'"MARK-8"', "events/floor: not a JSON object (a string)"),
    ("events/floor", b'{"seq": 1, "card": "MARK-9", "epoch": "../../x"}', "events/floor: epoch: want a journal's"),
    ("events/floor", b'{"card": "MARK-10", "x": ' + b"[" * 20 + b"]" * 20 + b"}",
     "events/floor: nested more than 12 deep"),
    ("events/floor", '{"card": "MARK-11"}'.encode("utf-16"), "events/floor: not UTF-8 text (byte 0)"),
]


@pytest.fixture
def service(tmp_path: Path):
    cfg = parse_floor_text(f'[floor]\nbroker = "mqtt://127.0.0.1:1"\ndatabase = "{tmp_path / "floor.db"}"\n',
                           path=tmp_path / "floor.toml")
    svc = FloorService(cfg, link=False)
    svc.on_message(T + "state", json.dumps({"online": True, "room": "main", "table": "t7"}).encode())
    yield svc
    svc.hashers.shutdown(wait=False)
    svc.store.close()


def test_each_malformed_payload_is_counted_on_the_tile_and_logged_by_table_and_topic(service, caplog):
    caplog.set_level(logging.INFO, logger="tablectl.floor")
    for topic, payload, _ in MALFORMED:
        service.on_message(T + topic, payload)
    assert service.store.tables()[0]["suspects"] == len(MALFORMED)
    said = [r.getMessage() for r in caplog.records]
    for _, _, why in MALFORMED:
        assert any(line.startswith(f"floor: main/t7: a message refused: {why}") for line in said), why
    assert not [line for line in said if "MARK-" in line or "7777777771" in line or "../../x" in line]
    assert not [r for r in caplog.records if r.exc_info]


def test_what_the_stores_checks_miss_is_counted_too_never_a_traceback(service, caplog, mocker):
    """A message the store fails on for what it holds (a check that missed it: here a TypeError
    made on purpose) is refused and counted like the others, named by its table and topic."""
    mocker.patch.object(service.store, "ingest", side_effect=TypeError("MARK-secret"))
    service.on_message(T + "events/floor", b'{"card": "MARK-12"}')
    mocker.stopall()
    assert service.store.tables()[0]["suspects"] == 1
    said = [r.getMessage() for r in caplog.records]
    assert "floor: main/t7: a message refused: events/floor: the floor could not read it (TypeError)" in said
    assert not [line for line in said if "MARK-" in line] and not [r for r in caplog.records if r.exc_info]


def test_a_topic_of_no_table_is_said_once_a_while_and_counted_on_no_tile(service, caplog):
    for _ in range(5):
        service.on_message("tablectl/main//state", b'{"online": true, "card": "MARK-13"}')
    said = [r.getMessage() for r in caplog.records]
    assert said == ["floor: a message on a topic of no table ('tablectl/main//state'): ignored"]
    assert service.store.tables()[0]["suspects"] == 0
