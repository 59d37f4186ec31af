"""The dealing rules the sensors can check, one module per RULES.md family."""
