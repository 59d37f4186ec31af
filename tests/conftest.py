import os
import sys

import pytest
from pathlib import Path

from hw_sim.feig_reader import NoiseModel, SimFeigReader
from hw_sim.pty_device import PtyDevice
from rig.broker import broker as broker  # the room link's mosquitto (rig/broker.py)
from rig.other_user import other_user_code as other_user_code  # code uid 65534 can run (rig/other_user.py)

TABLECTL = [sys.executable, "-m", "controller.cli.main"]


@pytest.fixture
def sim_reader(tmp_path):
    """A simulated FEIG reader on a real pseudo-terminal, reachable at tmp_path/'reader'."""
    readers = []

    def make(single_antenna=False, noise=None, antennas=range(1, 14)):
        r = SimFeigReader(PtyDevice(tmp_path / "reader"), antennas=antennas, noise=noise or NoiseModel(),
                          single_antenna=single_antenna)
        r.start()
        readers.append(r)
        return r

    yield make
    for r in readers:
        r.stop()


#: the marker each folder's tests get (pyproject's markers)
FOLDER_MARKS = {"unit": "unit", "e2e": "e2e", "golden": "golden"}


def pytest_collection_modifyitems(config, items):
    """Each test marked by the folder it is in: ``pytest -m unit`` runs the unit tests alone.

    The ``slow`` tests handed out alone (the unit tests') run first, the order otherwise kept: they
    go out in the collection's order (:func:`pytest_xdist_make_scheduler`), and a 30 s test of the
    last folder, handed out last, kept one worker busy for its 30 s after the other two had finished."""
    tests = Path(__file__).parent
    for item in items:
        try:
            folder = Path(str(item.fspath)).relative_to(tests).parts[0]
        except ValueError:
            continue  # (a doctest of the package)
        mark = FOLDER_MARKS.get(folder)
        if mark is not None:
            item.add_marker(getattr(pytest.mark, mark))
    # (stable: the rest keep their order, and a whole module's tests stay together)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None or item.nodeid.startswith(WHOLE_MODULES))


def pytest_sessionfinish(session, exitstatus):
    """Under pytest-xdist, each worker hands its scenario counts to the controller."""
    from rig.scenarios import PLAYED

    out = getattr(session.config, "workeroutput", None)
    if out is not None:
        out["played"] = dict(PLAYED)


#: the folders whose modules share a broker, a floor service or a browser among their tests
#: (module-scoped fixtures): each such module runs whole on one worker
WHOLE_MODULES = ("tests/e2e/", "tests/golden/")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """(pytest-xdist's hook) ``-n auto`` (pyproject's addopts): one worker more than there are
    cores. Much of an end-to-end test is spent waiting (on a daemon, a broker, the floor's
    throttle, a browser, a device's timeout) and uses no core; a third worker on two cores fills
    that time: the whole suite on two quiet cores took 243 s with two workers, 192 s with three,
    193 s with four (more CPU: each worker collects the suite). PYTEST_XDIST_AUTO_NUM_WORKERS
    still decides when set (xdist's own rule)."""
    if config.option.numprocesses != "auto" or os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return len(os.sched_getaffinity(0)) + 1


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """(pytest-xdist's hook, in the controller) with ``--dist load`` (what ``-n`` does by default):
    each end-to-end and golden module given whole to one worker (set up once: its broker, floor
    or browser), every other test alone to whichever worker is free.

    xdist's own ``load`` hands each worker a quarter of the suite in one block of the collection
    order up front, never taken back: one worker got every end-to-end test and the other sat
    idle for the last third of the run. Its ``loadgroup`` would keep a module together, but with
    pytest 9 its group never reaches the test ids. Units are handed out one at a time as workers
    free up, the ones with the most tests first (xdist's ``--loadscope-reorder``: the modules,
    then the tests alone in the collection order, the end-to-end ones first)."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ModulesOrTests(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return path if path.startswith(WHOLE_MODULES) else nodeid

    return ModulesOrTests(config, log)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """(pytest-xdist's hook, in the controller) a worker's counts added to the session's."""
    from rig.scenarios import PLAYED

    for key, value in getattr(node, "workeroutput", {}).get("played", {}).items():
        PLAYED[key] += value


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """How many deal scripts and hands the session played in process (rig.scenarios.play): the
    scenario count the issues ask to keep from falling, printed where a CI log shows it."""
    from rig.scenarios import PLAYED

    if PLAYED["scripts"]:
        terminalreporter.write_line(f"scenarios played in process: {PLAYED['scripts']} scripts, "
                                    f"{PLAYED['hands']} hands, {PLAYED['screens']} display screens checked")
