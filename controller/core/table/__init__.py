"""The table: :class:`~controller.core.table.table.Table`, made of parts that each own their state."""

from controller.core.table.table import Table

__all__ = ["Table"]
