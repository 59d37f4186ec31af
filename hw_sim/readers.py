"""The simulated readers, by the configuration's driver name (``[reader] driver``): the device
and the ``[reader]`` lines the daemon's configuration gets for it. ``tablectl simulate --reader``,
``tablectl demo --reader``, the in-process harness and the benches choose by it.

>>> sorted(READER_DEVICES)
['bridge', 'feig', 'spots']
"""

from __future__ import annotations

from hw_sim.bridge_reader import SimBridgeReader
from hw_sim.feig_reader import SimFeigReader
from hw_sim.spots_reader import READER_LINES as SPOTS_LINES, SimSpotsReader

__all__ = ["READER_DEVICES"]


#: the simulated readers, by the configuration's driver name (and ``spots``, a set-up rather than
#: a driver): the device, and the [reader] lines
#: the daemon's configuration gets for it (the bridge board's cycle takes up to a second:
#: docs/protocols/bridge.md, "The cycle time")
READER_DEVICES: dict[str, tuple[type[SimFeigReader], str]] = {
    "feig": (SimFeigReader, "answer_timeout = 1.0"),
    "bridge": (SimBridgeReader, 'driver = "bridge"\nanswer_timeout = 2.0'),
    # the cheap set-up: two-card seat spots, no muck antenna (hw_sim.spots_reader; FEIG's protocol)
    "spots": (SimSpotsReader, SPOTS_LINES),
}
