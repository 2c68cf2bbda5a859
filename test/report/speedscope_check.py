#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""report_speedscope's reader: speedscope (npm) in headless Chromium opens FOLDED, and its sandwich
view's self and total per name must be what the collapsed stacks say.

usage: speedscope_check.py FOLDED SPEEDSCOPE_RELEASE_DIR BROWSER OUTDIR
Serves a directory of links (speedscope's files and the profile) on loopback, renders
index.html#profileURL=...&view=sandwich with --dump-dom, and reads the table's rows.
Exits 0, 1 saying what differs, or 77 when the page cannot be served here.
"""
import functools
import html
import http.server
import os
import re
import subprocess
import sys
import threading


def expected(folded):
    """Per frame name: self (the lines it ends) and total (the lines it is in, once a line)."""
    self_, total = {}, {}
    for line in open(folded, encoding="utf-8"):
        stack, _, w = line.rstrip("\n").rpartition(" ")
        frames, w = stack.split(";"), int(w)
        self_[frames[-1]] = self_.get(frames[-1], 0) + w
        for f in set(frames):
            total[f] = total.get(f, 0) + w
    return self_, total


def main(folded, release, browser, outdir):
    d = os.path.join(outdir, "speedscope")
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(release):
        link = os.path.join(d, f)
        if not os.path.lexists(link):
            os.symlink(os.path.join(release, f), link)
    with open(folded, "rb") as src, open(os.path.join(d, "profile.folded"), "wb") as dst:
        dst.write(src.read())
    quiet = type("H", (http.server.SimpleHTTPRequestHandler,), {"log_message": lambda *a: None})
    try:
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(quiet, directory=d))
    except OSError as e:
        print("no loopback server here (%s): speedscope not run" % e)
        return 77
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/index.html#profileURL=/profile.folded&view=sandwich" % srv.server_port
    env = dict(os.environ, HOME=outdir)
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
                          "--user-data-dir=" + os.path.join(outdir, "profile"), "--virtual-time-budget=10000",
                          "--dump-dom", url], env=env, capture_output=True, text=True, timeout=120).stdout
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,500",
                    "--user-data-dir=" + os.path.join(outdir, "profile"), "--virtual-time-budget=10000",
                    "--screenshot=" + os.path.join(outdir, "speedscope.png"),
                    url.replace("&view=sandwich", "")], env=env, capture_output=True, timeout=120)
    srv.shutdown()
    table = re.search(r"</thead>(.*)", dom, re.S)  # the rows: a table of their own, scrolled under the head
    if not table or "<td" not in table.group(1):
        open(os.path.join(outdir, "dom.html"), "w").write(dom)
        print("speedscope showed no table: its page is in %s/dom.html" % outdir)
        return 1
    got = {}
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table.group(1), re.S):
        cells = [html.unescape(re.sub(r"<[^>]*>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        num = [int(re.sub(r"[^0-9]", "", c.split("(")[0]) or 0) for c in cells[:2]]
        got[cells[2]] = {"self": num[1], "total": num[0]}
    self_, total = expected(folded)
    want = {n: {"self": self_.get(n, 0), "total": total[n]} for n in total}
    if got != want:
        print("speedscope read %r\nthe folded report says %r" % (got, want))
        return 1
    print("speedscope %s read %d names, each with the self and total of the folded report"
          % (open(os.path.join(release, "release.txt")).read().split()[0], len(got)))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
