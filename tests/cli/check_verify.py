#!/usr/bin/env python3
"""What tests/cli/check.sh verifies of perfskel check's output, from
nothing but the seconds it reports and what other tools say:

  check_verify.py json JSON DIR STATS SIM FLAVOUR RUNS MACHINE CALIBRATED ARGS [SLOWEST]
      every field of check's JSON; the medians, min and max recomputed from
      the plain runs' seconds, each of which recomputed from the ranks' time
      files in DIR/check/plain-K (slowest rank, MPI_Init exit to
      MPI_Finalize entry); the recorded run as `perfskel stats --json`
      (STATS) counts it; sim's prediction as `perfskel sim --json` (SIM)
      gives it; every error, the noise floor and within_noise recomputed.
  check_verify.py table TABLE JSON
      the table's rows, errors, noise floor and verdict say what the JSON
      (of the same run) says, to the digits printed.

Exit status 0, or 1 after one line per fault."""
import glob
import json
import os
import re
import statistics
import sys

fails = []


def need(cond, what):
    if not cond:
        fails.append(what)


def close(a, b, what, tol=1e-9):
    need(a is not None and b is not None and abs(a - b) <= tol * max(1.0, abs(b)), "%s: %r, expected %r" % (what, a, b))


def pct(a, b):
    return 100.0 * (a - b) / b


def verify_json(path, chk, stats, simj, fl, runs, machine, calibrated, args, slowest=None):
    d = json.load(open(path))
    runs = int(runs)
    need(d["mpi"] == fl, "mpi %r" % d["mpi"])
    need(d["ranks"] == 2, "ranks %r" % d["ranks"])
    need(d["dir"] == chk, "dir %r" % d["dir"])
    need(d["command"][-2:] == args.split(), "command %r" % d["command"])
    pl = d["plain"]
    need(pl["runs"] == runs and len(pl["seconds"]) == runs and len(pl["wall_seconds"]) == runs, "plain runs")
    s = pl["seconds"]
    close(pl["median_seconds"], statistics.median(s), "median")
    close(pl["min_seconds"], min(s), "min")
    close(pl["max_seconds"], max(s), "max")
    need(pl["min_seconds"] <= pl["median_seconds"] <= pl["max_seconds"], "median outside min-max")
    need(all(x > 0 for x in s), "a plain run of 0 s")
    close(pl["spread_percent"], 100 * (max(s) - min(s)) / statistics.median(s), "spread")
    # one plain run measures no noise: no floor, nothing judged by it
    floor = pl["spread_percent"] if runs > 1 else None
    if runs > 1:
        close(d["noise_floor_percent"], pl["spread_percent"], "noise floor")
    else:
        need(d["noise_floor_percent"] is None, "a noise floor from one run")

    def judged(x, err, what):
        need(x["within_noise"] == (abs(err) <= floor if floor is not None else None), what + " within_noise")

    close(pl["wall_median_seconds"], statistics.median(pl["wall_seconds"]), "wall median")
    need(all(w > x for w, x in zip(pl["wall_seconds"], s)), "a launcher wall time below its program's time")
    for k in range(runs):
        each = {}
        files = glob.glob(os.path.join(chk, "check", "plain-%d" % (k + 1), "rank-*.times"))
        need(len(files) == 2, "plain-%d: %d time files" % (k + 1, len(files)))
        for f in files:
            v = {l.split()[0]: l.split()[1:] for l in open(f)}
            need(v.get("exit") == ["0"], "%s: exit line %r" % (f, v.get("exit")))
            if "finalize" in v and "init" in v and "rank" in v:
                each[int(v["rank"][0])] = (int(v["finalize"][0]) - int(v["init"][1])) * 1e-9
            else:
                fails.append("%s: no rank, init or finalize line" % f)
        if each:
            close(s[k], max(each.values()), "plain run %d against its slowest rank's time file" % (k + 1))
            if slowest is not None:
                need(max(each, key=each.get) == int(slowest), "plain run %d: rank %s not the slowest: %r" % (k + 1, slowest, each))
    rec = d["recorded"]
    st = json.load(open(stats))
    close(rec["seconds"], max(r["wall_seconds"] for r in st["ranks"]), "recorded seconds against perfskel stats", 1e-6)
    need(rec["events"] == st["totals"]["events"], "recorded events")
    med = pl["median_seconds"]
    close(rec["overhead_percent"], pct(rec["seconds"], med), "overhead")
    judged(rec, rec["overhead_percent"], "overhead")
    pr = d["predict"]
    need(pr["K"] == 10, "K")
    need(pr["low_seconds"] <= pr["predicted_seconds"] <= pr["high_seconds"], "predict outside its own interval")
    need(pr["skeleton_seconds"] > 0, "skeleton seconds")
    for name in ("predict", "sim"):
        x = d[name]
        close(x["error_percent"], pct(x["predicted_seconds"], med), name + " error against the plain median")
        close(x["error_vs_recorded_percent"], pct(x["predicted_seconds"], rec["seconds"]),
              name + " error against the recording")
        judged(x, x["error_percent"], name)
    sm = d["sim"]
    need(sm["calibrated"] == (calibrated == "1"), "sim calibrated %r" % sm["calibrated"])
    need(sm["machine"] == machine, "sim machine %r" % sm["machine"])
    close(sm["predicted_seconds"], json.load(open(simj))["predicted_seconds"], "sim's prediction against perfskel sim")


def verify_table(table, path):
    text = open(table).read()
    d = json.load(open(path))
    num = r"([0-9]+\.[0-9]+)"
    pc = r"([+-][0-9]+\.[0-9]) %"
    m = re.search(r"^plain median \(3 runs\) +([0-9.]+)$", text, re.M)
    if not m:
        fails.append("no row 'plain median (3 runs)'")
        return
    dec = len(m.group(1).split(".")[1])

    def row(label, npct):
        m = re.search(r"^" + re.escape(label) + r" +" + num + (r" +" + pc) * npct + r"$", text, re.M)
        if not m:
            fails.append("no row %r with %d errors" % (label, npct))
            return [None] * (npct + 1)
        return [float(g) for g in m.groups()]

    def near(a, b, digits, what):
        need(a is not None and abs(a - b) <= 0.51 * 10 ** -digits, "%s: %r in the table, %r in the JSON" % (what, a, b))

    pl, rec, pr, sm = d["plain"], d["recorded"], d["predict"], d["sim"]
    med = pl["median_seconds"]
    near(row("plain median (3 runs)", 0)[0], med, dec, "median")
    v = row("plain min", 1)
    near(v[0], pl["min_seconds"], dec, "min")
    near(v[1], pct(pl["min_seconds"], med), 1, "min %")
    v = row("plain max", 1)
    near(v[0], pl["max_seconds"], dec, "max")
    near(v[1], pct(pl["max_seconds"], med), 1, "max %")
    v = row("recorded run", 1)
    near(v[0], rec["seconds"], dec, "recorded")
    near(v[1], rec["overhead_percent"], 1, "overhead")
    for label, x in (("predict (K = 10)", pr), ("sim (calibrated here)", sm)):
        v = row(label, 2)
        near(v[0], x["predicted_seconds"], dec, label)
        near(v[1], x["error_percent"], 1, label + " error")
        near(v[2], x["error_vs_recorded_percent"], 1, label + " against the recording")
    m = re.search(r"^launcher wall time +" + num + " ", text, re.M)
    need(m is not None, "no row 'launcher wall time'")
    if m:
        near(float(m.group(1)), pl["wall_median_seconds"], dec, "launcher wall time")
    m = re.search(r"^noise floor: the plain runs spread ([0-9.]+) %", text, re.M)
    need(m is not None, "no noise floor line")
    if m:
        near(float(m.group(1)), d["noise_floor_percent"], 1, "noise floor")
    for name, e, within in (("predict", pr["error_percent"], pr["within_noise"]),
                            ("sim", sm["error_percent"], sm["within_noise"]),
                            ("recording overhead", rec["overhead_percent"], rec["within_noise"])):
        want = "%s %+.1f %%: %s" % (name, e, "within noise" if within else "outside the noise")
        need(re.search(r"^verdict:.*" + re.escape(want), text, re.M), "the verdict lacks %r" % want)


if sys.argv[1] == "json":
    verify_json(*sys.argv[2:])
else:
    verify_table(sys.argv[2], sys.argv[3])
for f in fails:
    print("  " + f)
sys.exit(1 if fails else 0)
