"""Measured data into trace files: ``satcp trace import`` (``command.py``).

One concept per file: ``measurement.py`` (what an importer returns, the
input error), ``iperf3.py``, ``ping.py``, ``starlink_dish.py`` (the
importers), ``writers.py`` (capacity, rate, delay and loss trace files and
the scenario snippet), ``measured.py`` (the measured series ``satcp report
--measured`` draws). docs/traces.md is the user's guide.
"""
