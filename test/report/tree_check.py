#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""report_tree's checker: DIR's folded, hatchet and json-split reports against its json report's paths.

Each export must hold every path of the json report with the same figures, in the shape its reader
takes (Hatchet's LiteralReader: frame, metrics, children; its CaliperReader: data, columns,
column_metadata, nodes with parent; collapsed stacks: frames by ';', the weight after the last space).
Exits 0, or 1 saying what differs.
"""
import csv
import json
import sys


def esc(name):
    """A name as the text reports escape it, and ';' as folded frames do."""
    out = []
    for c in name:
        o = ord(c)
        if c == "\\":
            out.append("\\\\")
        elif c in "\n\t\r":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}[c])
        elif o < 0x20 or 0x7F <= o <= 0x9F:
            out.append("\\x%02x" % o)
        elif c == ";":
            out.append("\\x3b")
        else:
            out.append(c)
    return "".join(out)


def fail(msg):
    print("tree_check:", msg)
    sys.exit(1)


def main(d):
    rep = json.load(open(d + "/report.json"))
    evs = rep["events"]
    paths = {tuple(p["path"]): p for p in rep["paths"]}
    if not paths:
        fail("no paths in the json report")

    seen = {}

    def walk(nodes, up):
        for n in nodes:
            if set(n) != {"frame", "metrics", "children"} or "name" not in n["frame"]:
                fail("hatchet: a node without frame.name, metrics and children: %r" % n)
            seen[up + (n["frame"]["name"],)] = n["metrics"]
            walk(n["children"], up + (n["frame"]["name"],))

    walk(json.load(open(d + "/tree.hatchet")), ())
    if set(seen) != set(paths):
        fail("hatchet: paths %s, json %s" % (sorted(seen), sorted(paths)))
    for k, m in seen.items():
        p = paths[k]
        want = {"calls": p["calls"], "time": p["self_ns"] / 1e9, "time (inc)": p["ns"] / 1e9}
        for e in evs:
            want[e] = p["self_counts"][e]
            want[e + " (inc)"] = p["counts"][e]
        if m != want:
            fail("hatchet: %r has %r, json %r" % (k, m, want))

    sp = json.load(open(d + "/tree.split"))
    cols, nodes = sp["columns"], sp["nodes"]
    if len(sp["column_metadata"]) != len(cols) or cols[0] != "path":
        fail("json-split: columns %r, metadata %r" % (cols, sp["column_metadata"]))
    full = []
    for n in nodes:
        up = full[n["parent"]] if "parent" in n else ()
        full.append(up + (n["label"],))
    rows = {full[r[0]]: dict(zip(cols[1:], r[1:])) for r in sp["data"]}
    if set(rows) != set(paths) or len(sp["data"]) != len(nodes):
        fail("json-split: paths %s, json %s" % (sorted(rows), sorted(paths)))
    for k, r in rows.items():
        p = paths[k]
        if (r["calls"], r["sum#time.duration"], r["inclusive#sum#time.duration"]) != (
                p["calls"], p["self_ns"] / 1e9, p["ns"] / 1e9) or any(
                r[e] != p["self_counts"][e] or r[e + " (inc)"] != p["counts"][e] for e in evs):
            fail("json-split: %r has %r, json %r" % (k, r, p))

    for name, fig in (("tree.folded", "ns"), ("tree.folded-ev", evs[0])):
        got = {}
        for line in open(d + "/" + name, encoding="utf-8"):
            stack, _, w = line.rstrip("\n").rpartition(" ")
            got[stack] = int(w)
        want = {}
        for k, p in paths.items():
            v = p["self_ns"] if fig == "ns" else p["self_counts"][fig]
            if v:
                want[";".join(esc(x) for x in k)] = v
        if got != want:
            fail("%s: %r, json %r" % (name, got, want))
    with open(d + "/tree.csv", newline="", encoding="utf-8") as f:
        table = list(csv.reader(f))
    head = table[0]
    if len(set(map(len, table))) != 1 or "path" not in head or "ns_p50" not in head:
        fail("csv: rows of %s cells, heading %r" % (sorted(set(map(len, table))), head))
    got = {}
    for r in table[1:]:
        c = dict(zip(head, r))
        if c["path"]:  # histograms kept (report_tree): each path's, as its json has them
            j = paths[tuple(n.replace("\\x3b", ";") for n in c["path"].split(";"))]
            if sum(b[1] for b in j["dist"]["ns"]["buckets"]) != j["calls"] or float(c["ns_p50"]) != j["dist"]["ns"]["p50"]:
                fail("csv: path %r: p50 %s, json %r" % (c["path"], c["ns_p50"], j.get("dist")))
        if c["path"]:
            got[c["path"]] = [int(c["calls"]), int(c["ns"]), int(c["self_ns"])] + [
                int(c[e]) for e in evs] + [int(c["self(%s)" % e]) for e in evs]
    want = {";".join(x.replace(";", "\\x3b") for x in k): [p["calls"], p["ns"], p["self_ns"]] + [
        p["counts"][e] for e in evs] + [p["self_counts"][e] for e in evs] for k, p in paths.items() if p["calls"]}
    if got != want:
        fail("csv: %r, json %r" % (got, want))
    print("tree_check: %d paths alike in hatchet, json-split, folded (ns and %s) and csv, with histograms" % (
        len(paths), evs[0]))


if __name__ == "__main__":
    main(sys.argv[1])
