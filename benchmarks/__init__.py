"""Scripts that measure the engine (``engine.py``) and the live tables (``load``, run as
``python -m benchmarks.load``) and print figures; none of them is a test."""
