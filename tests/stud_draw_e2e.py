"""The end-to-end checks of the stud and draw games, ready for the day the daemon deals them.

Not a test module (pytest collects ``test_*.py`` only): each function deals hands through the
in-process harness and checks them with :func:`rig.scenarios.deal_and_check` (exact zones and
stub count, no dealer or floor alert, the prompts each hand's oracle expects). The test that
calls one is switched on with the game in the daemon; until then the daemon's configuration
refuses the game. For example, once stud is dealt::

    @pytest.mark.parametrize("game", ["stud", "stud8", "razz"])
    def test_random_stud_hands_end_exactly_right(game):
        deal_random_hands(game)
"""

from __future__ import annotations

from hw_sim.phh import phh_script
from hw_sim.phh_stud import load_phh_stud_hands
from hw_sim.random_hands import most_seats, random_script
from hw_sim.stud_oracle import STUD_GAMES
from rig.scenarios import NOISE, PHH_DIR, deal_and_check


def deal_random_hands(game: str, *, hands: int = 100, seed: int = 16) -> dict:
    """``hands`` clean random hands of ``game`` (2 to its most seats, under the scenario noise),
    dealt and checked; the seats vary from hand to hand, so every size of table comes up. In
    stud, seven and eight players stay to 7th street now and then (the short stub: the
    hands of the script's second half fold seldom), and the test sees that they did.
    Returns the report."""
    expect: list[list[dict]] = []
    script = random_script(seed, hands=hands - hands // 2, game=game, noise=dict(NOISE, seed=seed),
                           vary_seats=True, expect=expect)
    script["hands"] += random_script(seed + 1, hands=hands // 2, game=game, vary_seats=True, expect=expect,
                                     fold_chance=0.02)["hands"]
    sizes = {len(h["seats"]) for h in script["hands"]}
    assert max(sizes) == most_seats(game) or hands < 30, f"{game}: table sizes {sorted(sizes)}"
    if game in STUD_GAMES and hands >= 50:
        assert any(e["rule"] == "STUD-006" and e["procedure"] for hand in expect for e in hand), \
            f"{game}: no hand reached a short 7th street"
    return deal_and_check(script, expect)


def deal_real_stud_hands(game: str) -> dict:
    """Every real hand of ``game`` (``stud``, ``stud8``, ``razz``) of the PHH sample, dealt under
    noise and checked, the prompts against what each history shows (who brought in, who acted
    first). Returns the report."""
    mine = [(hand, expect) for _, hand, g, expect in load_phh_stud_hands(PHH_DIR) if g == game]
    assert mine, f"no {game} hands in {PHH_DIR}"
    script = phh_script([h for h, _ in mine], game=game, noise=dict(NOISE, seed=9))
    return deal_and_check(script, [e for _, e in mine])
