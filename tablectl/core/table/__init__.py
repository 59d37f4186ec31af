"""The table: :class:`~tablectl.core.table.table.Table`, made of parts that each own their state."""

from tablectl.core.table.table import Table

__all__ = ["Table"]
