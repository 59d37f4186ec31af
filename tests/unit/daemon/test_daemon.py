"""The daemon's loop: outputs that fail never stop the table."""

from pathlib import Path

from controller.core.events import DeviceStatus
from controller.config.daemon import parse_config
from controller.daemon.main import Daemon
from controller.daemon.sinks import CallbackSink, Sink


class FullDisk(Sink):
    clearance = "floor"

    def write(self, effects):
        raise OSError(28, "No space left on device")


def test_a_failing_output_is_skipped_and_the_others_still_get_everything(caplog):
    got = []
    d = Daemon(parse_config('[reader]\nport = "loop://"', path=Path("t.toml")),
               sinks=[FullDisk(), CallbackSink(got.extend, clearance="dealer")])
    d.handle(DeviceStatus(1.0, "reader", False, "gone"))
    d.handle(DeviceStatus(2.0, "reader", True))
    assert [a.code for a in got] == ["device.reader_offline", "device.reader_online"]
    assert d.events_applied == 2
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1 and "output FullDisk failed" in errors[0]  # said once, not per event


def test_the_ready_wait_for_the_devices_at_start_is_the_configured_one(tmp_path, mocker):
    """[outputs] ready_wait bounds Daemon._await_devices: 0 means READY without waiting."""
    cfg = parse_config('[reader]\nport = "loop://"\n[outputs]\nready_wait = 0', path=tmp_path / "t.toml")
    d = Daemon(cfg, sinks=[])
    wait = mocker.patch.object(d._stop, "wait", return_value=False)  # (False: no stop asked meanwhile)
    d._await_devices()  # the reader was never started: it is not online
    wait.assert_not_called()
    assert d.config.outputs.ready_wait == 0.0
    d.config = parse_config('[reader]\nport = "loop://"\n[outputs]\nready_wait = 0.05', path=tmp_path / "t.toml")
    d._await_devices()
    wait.assert_called()  # a positive ready_wait waits for the devices
