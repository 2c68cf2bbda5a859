# SPDX-License-Identifier: MIT
# One report file (argv[2]) in its format (argv[1]) read by a reader of that
# format that libpmu did not write: csv by Python's csv, json by json, html by
# html.parser (every tag closed), Prometheus text by promtool check metrics
# where installed and by python3-prometheus-client's parser, OpenMetrics by its
# strict OpenMetrics parser, collapsed stacks (folded) as flamegraph.pl reads them; and the
# region argv[3] is in it, with its calls,
# and (argv[4] "dist") its distributions: quantiles and the tail.
import csv
import json
import subprocess
import sys
from html.parser import HTMLParser

fmt, path, region = sys.argv[1], sys.argv[2], sys.argv[3]
dist = sys.argv[4:] == ["dist"]
marks = {"table": "slowest 1% of " + region, "csv": ",ns_p99.9,", "json": '"dist": {"scheme"',
         "html": "<h2>Distributions</h2>", "prometheus": "pmu_region_call_seconds{region=\"%s\"" % region,
         "openmetrics": "pmu_region_call_seconds{region=\"%s\"" % region}
text = open(path, encoding="utf-8").read()
assert text, "%s is empty" % path


def prom_families(om):
    try:
        if om:
            from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse
        else:
            from prometheus_client.parser import text_string_to_metric_families as parse
    except ImportError:
        print("python3-prometheus-client is not installed: %s checked by promtool alone" % fmt)
        return None
    return {f.name: f for f in parse(text)}


class Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.open = []

    def handle_starttag(self, tag, attrs):
        if tag not in ("meta", "br", "link", "col", "img", "input", "hr", "wbr"):
            self.open.append(tag)

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, "</%s> closes <%s>" % (tag, self.open[-1:] or "nothing")
        self.open.pop()


if fmt == "table":
    assert region in text and "calls" in text, text[:400]
elif fmt == "csv":
    rows = list(csv.DictReader(text.splitlines()))
    assert any(r.get("region") == region and int(r["calls"]) > 0 for r in rows), rows[:3]
elif fmt == "json":
    doc = json.loads(text)
    assert any(r["name"] == region and r["calls"] > 0 for r in doc["regions"]), doc["regions"][:3]
elif fmt == "html":
    t = Tags()
    t.feed(text)
    t.close()
    assert not t.open and region in text, t.open
elif fmt in ("prometheus", "openmetrics"):
    if fmt == "prometheus" and subprocess.run("command -v promtool >/dev/null", shell=True).returncode == 0:
        subprocess.run(["promtool", "check", "metrics"], input=text.encode(), check=True)
    fams = prom_families(fmt == "openmetrics")
    if fams is not None:
        name = "pmu_region_calls"  # both parsers name the family without _total
        assert any(s.labels["region"] == region and s.value > 0 for s in fams[name].samples), fams[name]
    assert ("pmu_region_calls_total{region=\"%s\"" % region) in text
    assert (fmt == "openmetrics") == text.endswith("# EOF\n")
elif fmt == "folded":  # as flamegraph.pl reads it: frames by ';', the weight after the last space
    stacks = [line.rpartition(" ") for line in text.splitlines()]
    assert all(sp == " " and w.isdigit() and int(w) > 0 for _, sp, w in stacks), stacks[:3]
    assert any(region in st.split(";") for st, _, _ in stacks), stacks[:3]
else:
    raise SystemExit("unknown format " + fmt)
assert not dist or marks[fmt] in text, "%s: no distributions (%s)" % (path, marks[fmt])
print("%s: %s, region %s%s: read" % (path, fmt, region, ", with its distributions" if dist else ""))
