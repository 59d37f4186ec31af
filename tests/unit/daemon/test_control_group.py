"""The control socket's group under the shipped unit (systemd/tablectl.service): its system call
filter, ``SystemCallFilter=~@privileged``, takes ``@chown`` away, so a chown of the socket is
refused with EPERM (``SystemCallErrorNumber=EPERM``). The unit's ``Group=tablectl`` is the group
setup writes as ``[control] group``, and the socket is made in it: asking for it again stopped
the service at every start under systemd (exit status 2, "cannot give it to group tablectl:
Operation not permitted"; found by rig/install_container.py under systemd-nspawn). The filter
cannot exist in a test: ``os.chown`` refusing as it does stands in for it."""

import errno
import os
import stat

import pytest

from controller.config.daemon import ControlConfig
from controller.daemon.control import ControlServer


@pytest.fixture
def filtered(mocker):
    """chown refused as the unit's seccomp filter refuses it."""
    return mocker.patch("controller.daemon.control.os.chown",
                        side_effect=PermissionError(errno.EPERM, "Operation not permitted"))


def test_a_socket_made_in_its_group_is_not_given_to_it_again(tmp_path, filtered):
    path = tmp_path / "control.sock"
    server = ControlServer(str(path), lambda event: None, dict,
                           config=ControlConfig(group=os.getegid(), group_name="tablectl"))
    try:
        st = os.stat(path)
        assert (st.st_gid, stat.S_IMODE(st.st_mode)) == (os.getegid(), 0o660)
        filtered.assert_not_called()
    finally:
        server.close()


def test_another_group_is_still_asked_for_and_its_refusal_names_the_unit(tmp_path, filtered):
    other = os.getegid() + 1
    with pytest.raises(OSError) as refused:
        ControlServer(str(tmp_path / "control.sock"), lambda event: None, dict,
                      config=ControlConfig(group=other, group_name="floor"))
    filtered.assert_called_once_with(str(tmp_path / "control.sock"), -1, other)
    assert "cannot give it to group floor: Operation not permitted" in str(refused.value)
    assert "the unit's Group=" in str(refused.value)
    assert not (tmp_path / "control.sock").exists()  # nothing left listening, nor its path
