"""``tablectl COMMAND --help``: each option's default said once, in words where the default is
"none" (issue 41: ``tablectl demo --help`` said "(default: forever) (default: None)")."""

from __future__ import annotations

import argparse
import re

from controller.cli.main import build_parser


def helps() -> dict[str, str]:
    """Every command's help text, by command (the top level as "tablectl")."""
    parser = build_parser()
    out = {"tablectl": parser.format_help()}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out[name] = sub.format_help()
    return out


def test_demo_help_says_forever_and_random_once():
    text = " ".join(helps()["demo"].split())  # (argparse wraps lines)
    assert "stop after N hands (default: forever)" in text
    assert "the same seed deals the same hands (default: random)" in text
    assert "(default: None)" not in text
    assert "--speed SPEED how fast the simulated dealer deals (1: about two cards a second) (default: 1.0)" in text


def test_no_help_says_default_none_or_two_defaults():
    for command, text in helps().items():
        flat = " ".join(text.split())
        assert "(default: None)" not in flat, command
        assert not re.search(r"\(default: [^)]*\) \(default:", flat), command
