"""A toy second game behind the engine protocol, for the platform's tests: ``highcard``."""

from .rules import ENGINE

__all__ = ["ENGINE"]
