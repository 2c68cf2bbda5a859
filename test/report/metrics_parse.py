#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Parses standard input with the prometheus_client package's own parsers (Debian's
python3-prometheus-client): --openmetrics for OpenMetrics 1.0 text (strict: "# EOF",
counters' "_total", units), else Prometheus text 0.0.4. Prints each family and its
samples; exit 0 accepted, 1 refused, 77 the package is not installed."""
import sys

try:
    from prometheus_client.openmetrics.parser import text_string_to_metric_families as om
    from prometheus_client.parser import text_string_to_metric_families as prom
except ImportError:
    print("python3-prometheus-client is not installed")
    sys.exit(77)

text = sys.stdin.read()
try:
    fams = list((om if "--openmetrics" in sys.argv else prom)(text))
except Exception as e:  # the parsers raise ValueError and others
    print("refused: %s" % e)
    sys.exit(1)
for f in fams:
    print("%s %s unit=%r samples=%d" % (f.name, f.type, getattr(f, "unit", ""), len(f.samples)))
sys.exit(0)
