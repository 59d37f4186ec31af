"""Issue 40's side-by-side count: the same hands through the FEIG reader and through the bridge
board (its firmware's own logic on simulated PN5180s, hw_sim/bridge_reader.py), in one run, under
the harsh noise, in process (the harness; the bridge on its wire).

The PHH sample's hold'em and Omaha hands (tests/data/phh), random clean hands of every game the
core deals, one hand per dealer's fault of ``hw_sim.faults`` and the deck faults (a card of the
spare deck, a tag of no deck, a cloned tag), in hold'em and Omaha (``rig.side_by_side``). Prints,
per reader, as a Markdown table: hands, cards, clean hands whose zones came out exact (as the
script put them), alerts on the clean hands (false alerts: must be 0), faults found (at their
step; a clone in its hand), the confirmation latency in cycles (the worst script's p50 and p99),
and the time taken; then what went wrong, where.

    .venv/bin/python bench/bridge_side_by_side.py [--random 2] [--phh 0 (all)] [--seed 40] [--reader bridge]
        [--bridge-rf module_per_zone|multiplexer]

``--bridge-rf multiplexer``: the simulated board under the FEIG reader's RF set-up, whose neighbours
hear a lifted card (hw_sim/noise.py): what the board's driver would make of crosstalk it should not
meet (docs/protocols/bridge.md, "The simulated board's noise").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hw_sim.bridge_reader import SimBridgeReader  # noqa: E402
from hw_sim.noise import SETUPS  # noqa: E402
from rig.side_by_side import count, hands_of, table  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--random", type=int, default=2, help="random clean hands of each game")
    p.add_argument("--phh", type=int, default=0, help="PHH hands of each game (0: all)")
    p.add_argument("--seed", type=int, default=40)
    p.add_argument("--reader", action="append", choices=("feig", "bridge"),
                   help="only these readers (default: both)")
    p.add_argument("--bridge-rf", choices=SETUPS, default=SimBridgeReader.RF_SETUP,
                   help="the simulated board's RF set-up (default: its own, a module a zone)")
    args = p.parse_args()
    SimBridgeReader.RF_SETUP = args.bridge_rf
    samples = hands_of(random_hands=args.random, phh=args.phh, seed=args.seed)
    counts = []
    for reader in args.reader or ("feig", "bridge"):
        counts.append(count(reader, samples))
        print(f"{reader}: done in {counts[-1].seconds:.0f} s", flush=True)
    print(table(counts))
    for c in counts:
        for what, items in (("inexact", c.inexact), ("false alert", c.false_alerts), ("missed", c.missed)):
            for item in items:
                print(f"{c.reader}: {what}: {item}")


if __name__ == "__main__":
    main()
