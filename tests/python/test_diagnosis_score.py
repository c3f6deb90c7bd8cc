"""bench/diagnosis/score.py on hand-written report JSONs shaped like `gpuscope report --format
json` of a PyTorch capture with steps (Recommendations' judged line and ranking, the Steps
section): each verdict the diagnosis table can give. CPU only, standard library."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCORE = os.path.join(ROOT, "bench", "diagnosis", "score.py")


def report(findings, steps=30, step_ms=10.0):
    """A report whose capture has `steps` train_step ranges of `step_ms`; findings are
    (rule, saving_ms or None, title), ranked in that order."""
    steady_ns = (steps - 1) * step_ms * 1e6
    wall_ns = steady_ns * 3
    judged = {"key": "judged", "label": "Judged",
              "value": "steady state: steps 2–%d of train_step, %.1f ms of %.2f s"
                       % (steps, steady_ns / 1e6, wall_ns / 1e9),
              "unit": "text", "note": "findings about time judge steps 2..N"}
    columns = [{"key": "rank", "title": "#", "unit": "count"},
               {"key": "rule", "title": "Rule", "unit": "text"},
               {"key": "saving", "title": "Est. saving", "unit": "ns"},
               {"key": "wall_percent", "title": "% of wall", "unit": "percent"},
               {"key": "steady_percent", "title": "% of steps", "unit": "percent"},
               {"key": "title", "title": "Finding", "unit": "text"}]
    rows = []
    for i, (rule, saving_ms, title) in enumerate(findings):
        saving = None if saving_ms is None else int(saving_ms * 1e6)
        rows.append({"rank": i + 1, "rule": rule, "saving": saving,
                     "wall_percent": None if saving is None else 100 * saving / wall_ns,
                     "steady_percent": None if saving is None else 100 * saving / steady_ns,
                     "title": title})
    tables = [{"key": "recommendations", "title": "Ranked by estimated saving", "columns": columns,
               "rows": rows, "rows_omitted": 0, "notes": []}] if rows else []
    tables += [{"key": "finding_" + rule, "title": "%d. %s" % (i + 1, title), "columns": [],
                "rows": [], "rows_omitted": 0, "notes": ["Evidence: ...", "Do: ..."]}
               for i, (rule, _, title) in enumerate(findings)]
    steps_section = {"key": "steps", "title": "Steps", "lines": [
        {"key": "count", "label": "Steps", "value": steps, "unit": "count", "note": "train_step ranges"},
        {"key": "steady_steps", "label": "Steady steps", "value": steps - 1, "unit": "count", "note": ""},
        {"key": "steady_median", "label": "Steady step time (median)", "value": step_ms * 1e6,
         "unit": "ns", "note": ""}], "tables": [], "notes": []}
    return {"format": "gpuscope-report", "format_version": 1, "title": "gpuscope report",
            "sections": [{"key": "summary", "title": "Executive summary", "lines": [
                             {"key": "wall_time", "label": "Wall time", "value": wall_ns, "unit": "ns",
                              "note": ""}], "tables": [], "notes": []},
                         steps_section,
                         {"key": "recommendations", "title": "Recommendations", "lines": [judged],
                          "tables": tables, "notes": []}]}


def timing(name, variant, ms, rep, traced=False):
    return {"workload": name, "variant": variant, "step_ms_median": ms, "step_ms_min": ms - 0.1,
            "steps": 30, "checksum": 1.0, "device": "NVIDIA H100 80GB HBM3", "rep": rep,
            "traced": traced, "rc": 0}


class ScoreTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        d = self.dir.name
        workloads = [
            {"name": "right_one", "expected_rule": "host_sync", "planted": "syncs", "fixed": "no syncs"},
            {"name": "wrong_one", "expected_rule": "launch_bound", "planted": "tiny kernels", "fixed": "graphs"},
            {"name": "off_one", "expected_rule": "fp32_matmul", "planted": "fp32", "fixed": "tf32"},
            {"name": "control", "expected_rule": "none", "planted": "nothing", "fixed": None},
            {"name": "noisy_control", "expected_rule": "none", "planted": "nothing", "fixed": None},
            {"name": "not_run", "expected_rule": "straggler", "planted": "late rank", "fixed": "balanced"},
        ]
        for w in workloads:
            w.update(file=w["name"] + ".py", args=[], gpus=1, launcher="python")
        with open(os.path.join(d, "workloads.json"), "w") as f:
            json.dump({"workloads": workloads}, f)
        reports = {
            # 29 judged steps x 2 ms = 58 ms saving; measured 12 - 10 = 2 ms per step.
            "right_one": report([("host_sync", 58.0, "Host syncs in the loop"),
                                 ("gpu_idle_gaps", 20.0, "GPU idle while the host works")], step_ms=12),
            "wrong_one": report([("gpu_idle_gaps", 40.0, "GPU idle while the host works"),
                                 ("launch_bound", 30.0, "Many kernels shorter than their launch"),
                                 ("low_occupancy", None, "Low occupancy")]),
            # 29 x 1 ms estimated against 4 ms measured: ratio 0.25.
            "off_one": report([("fp32_matmul", 29.0, "fp32 GEMMs on SIMT pipes")], step_ms=14),
            # 1 % of a step (steady 29 x 10 ms = 290 ms; 2.9 ms), and one without a time.
            "control": report([("excessive_sync", 2.9, "Synchronization the run does not need"),
                               ("low_occupancy", None, "Low occupancy")]),
            "noisy_control": report([("launch_bound", 14.5, "Many kernels shorter than their launch")]),
        }
        for name, r in reports.items():
            with open(os.path.join(d, name + ".report.json"), "w") as f:
                json.dump(r, f)
        rows = []
        for rep in (1, 2, 3):
            rows += [timing("right_one", "planted", 12.0 + 0.01 * rep, rep), timing("right_one", "fixed", 10.0, rep),
                     timing("wrong_one", "planted", 10.0, rep), timing("wrong_one", "fixed", 9.0, rep),
                     timing("off_one", "planted", 14.0, rep), timing("off_one", "fixed", 10.0, rep),
                     timing("control", "planted", 10.0, rep), timing("noisy_control", "planted", 10.0, rep)]
        rows.append(timing("right_one", "planted", 13.0, 0, traced=True))
        with open(os.path.join(d, "timings.jsonl"), "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in rows))
        out = subprocess.run([sys.executable, SCORE, d, "--workloads", os.path.join(d, "workloads.json")],
                             capture_output=True, text=True, check=True).stdout
        self.out = out
        self.rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[1:-1]]
                     for line in out.splitlines()
                     if line.startswith("| ") and "---" not in line and line.count("|") == 11}

    def tearDown(self):
        self.dir.cleanup()

    def test_right(self):
        row = self.rows["right_one"]
        self.assertEqual(row[3], "host_sync: Host syncs in the loop")
        self.assertEqual(row[4], "2.00")         # 58 ms over 29 judged steps
        self.assertEqual(row[5], "2.02 (2.01)")  # medians 12.02 - 10; fastest 11.91 - 9.90
        self.assertEqual(row[9], "right")

    def test_wrong_first_names_what_ranked_first_and_the_expected_rank(self):
        row = self.rows["wrong_one"]
        self.assertEqual(row[9], "wrong #1 (gpu_idle_gaps ranked first)")
        self.assertEqual(row[8], "2")

    def test_estimate_off(self):
        row = self.rows["off_one"]
        self.assertEqual(row[6], "0.25")
        self.assertEqual(row[9], "right cause, estimate off")

    def test_none(self):
        self.assertEqual(self.rows["control"][9], "right")
        self.assertEqual(self.rows["noisy_control"][9], "wrong #1 (launch_bound saves 5.0% of a step)")

    def test_card_table_file_and_rows_of_workloads_not_run(self):
        self.assertTrue(self.out.startswith("Card: NVIDIA H100 80GB HBM3"))
        self.assertNotIn("not_run", self.rows)
        with open(os.path.join(self.dir.name, "table.md")) as f:
            self.assertEqual(f.read(), self.out)
        self.assertIn("| right_one | 12.02 | 13.00 | 1.08 |", self.out)


class CauseTest(unittest.TestCase):
    """The straggler's likely cause (Ranks section) against the planted amount the run printed."""

    @classmethod
    def setUpClass(cls):
        import importlib.util
        spec = importlib.util.spec_from_file_location("score", SCORE)
        cls.score = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cls.score)

    def judge(self, kind, note, reference_ms=3.0):
        workload = {"name": "ddp", "expected_cause": {"kind": "more kernels", "reference": "monitor_ms"}}
        report = {"sections": [{"key": "ranks", "lines": [
            {"key": "straggler_cause", "value": kind, "note": note}]}]}
        untraced = {("ddp", "planted"): [{"monitor_ms": reference_ms}, {"monitor_ms": reference_ms + 0.2}]}
        return self.score.judge_cause(workload, report, untraced)

    def test_right_kind_within_ten_percent(self):
        c = self.judge("more kernels", "more kernels: +8 launches per step that the other ranks do not make, "
                                       "3.2 ms of GPU time (120 compute kernels against 112)")
        self.assertEqual(c["verdict"], "right")
        self.assertAlmostEqual(c["ms"], 3.2)
        self.assertAlmostEqual(c["reference"], 3.1)

    def test_amount_off_and_wrong_kind(self):
        self.assertEqual(self.judge("more kernels", "more kernels: +8 launches per step that the other ranks "
                                                    "do not make, 1.1 ms of GPU time")["verdict"], "amount off")
        self.assertEqual(self.judge("host gaps", "host gaps: +3.0 ms per step (...)")["verdict"], "wrong cause")

    def test_other_workloads_have_no_cause_row(self):
        self.assertIsNone(self.score.judge_cause({"name": "x"}, {}, {}))


if __name__ == "__main__":
    unittest.main()
