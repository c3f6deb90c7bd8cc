"""The Python reader (python/gpuscope) on the committed captures and a torch.profiler trace.

Run by ctest (test python_reader) with PYTHONPATH=python and GPUSCOPE_BINARY=the built CLI:
    python3 -m unittest discover -s tests/python -v
Tables are read both as DataFrames (skipped without pandas) and as lists of dicts (pandas=False).
"""
from __future__ import annotations

import importlib.util
import os
import random
import shutil
import sqlite3
import subprocess
import tempfile
import unittest
from pathlib import Path

import gpuscope

DATA = Path(__file__).resolve().parents[1] / "data"
CAPTURES = sorted(DATA.glob("*.gpuscope"))
KINETO = DATA / "kineto" / "mlp_train.json.gz"
NCU_CSV = DATA / "ncu" / "metrics_kernels_raw.csv"
# Real nsys exports live outside the repository (tests/CMakeLists.txt, GPUSCOPE_SHARED_DIR).
NSYS = Path(os.environ.get("GPUSCOPE_SHARED_FIXTURES_DIR", "/nonexistent")) / "nsys" / "healthy_1pct.sqlite"
HAVE_PANDAS = importlib.util.find_spec("pandas") is not None
DataFrame = importlib.import_module("pandas").DataFrame if HAVE_PANDAS else None
NO_PANDAS = "pandas is not installed (Debian: python3-pandas); the DataFrame path is not tested"

# Capture method -> the table whose rows it returns (a named view has one row per table row).
METHODS = {
    "kernels": "kernels", "api_calls": "api_calls", "memcpys": "memcpys", "memsets": "memsets",
    "nvtx_ranges": "nvtx_ranges", "host_ops": "host_ops", "kernel_metrics": "kernel_metrics",
    "devices": "devices", "processes": "processes", "data_loss": "data_loss",
    "source_gaps": "source_gaps",
}


def sqlite_count(path: Path, table: str) -> int:
    """The row count a plain sqlite3 query gives; 0 for a table the file predates."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        if not db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
            return 0
        return db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def rows_of(table) -> list[dict]:
    """A table as a list of dicts, whichever form the reader returned."""
    return table if isinstance(table, list) else table.to_dict("records")


class CommittedCaptures(unittest.TestCase):
    def setUp(self) -> None:
        self.assertTrue(CAPTURES, f"no captures in {DATA}")

    def check_counts(self, pandas: bool) -> None:
        for path in CAPTURES:
            with gpuscope.open(path, pandas=pandas) as cap:
                for method, table in METHODS.items():
                    with self.subTest(capture=path.name, table=method):
                        result = getattr(cap, method)()
                        self.assertIsInstance(result, DataFrame if pandas else list)
                        self.assertEqual(len(result), sqlite_count(path, table))

    def test_counts_as_lists(self) -> None:
        self.check_counts(pandas=False)

    @unittest.skipUnless(HAVE_PANDAS, NO_PANDAS)
    def test_counts_as_dataframes(self) -> None:
        self.check_counts(pandas=True)

    def test_names_joined(self) -> None:
        path = DATA / "bsr_spmm_baseline.gpuscope"
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            strings = dict(db.execute("SELECT id, value FROM strings"))
        with gpuscope.open(path, pandas=False) as cap:
            kernels = cap.kernels()
            self.assertTrue(kernels)
            for k in kernels:
                self.assertEqual(k["name"], strings[k["name_id"]])
                self.assertEqual(k["mangled_name"], strings[k["mangled_name_id"]])
            self.assertTrue(all(k["name"].startswith("void bsr::bsr_spmm_kernel") for k in kernels))
            names = {a["name"] for a in cap.api_calls()}
            self.assertIn("cudaMalloc", names)
            for r in cap.nvtx_ranges():
                self.assertEqual(r["name"], strings[r["name_id"]])
                self.assertIn("domain", r)

    def test_times_are_integer_ns(self) -> None:
        with gpuscope.open(DATA / "spawn.gpuscope", pandas=False) as cap:
            run = cap.run()
            for k in cap.kernels():
                self.assertIsInstance(k["start_ns"], int)
                self.assertLessEqual(run["start_ns"], k["start_ns"])
                self.assertLessEqual(k["start_ns"], k["end_ns"])
            self.assertEqual(len(cap.processes()), 2)  # the two CUDA child processes

    @unittest.skipUnless(HAVE_PANDAS, NO_PANDAS)
    def test_dataframe_columns_and_types(self) -> None:
        with gpuscope.open(DATA / "bsr_spmm_metrics.gpuscope") as cap:
            kernels = cap.kernels()
            self.assertIn("name", kernels.columns)
            self.assertEqual(str(kernels["start_ns"].dtype), "int64")
            metrics = cap.kernel_metrics()
            self.assertEqual(list(metrics.columns), ["run_id", "pid", "correlation_id", "kernel",
                                                     "start_ns", "duration_ns", "metric", "value"])
            self.assertGreater(len(metrics), 0)
            self.assertEqual(str(metrics["value"].dtype), "float64")
        # The list path gives the same rows.
        with gpuscope.open(DATA / "bsr_spmm_metrics.gpuscope", pandas=False) as cap:
            self.assertEqual(rows_of(metrics)[:50], cap.kernel_metrics()[:50])

    @unittest.skipUnless(HAVE_PANDAS, NO_PANDAS)
    def test_empty_tables_keep_their_columns(self) -> None:
        with gpuscope.open(DATA / "crash_segv.gpuscope") as cap:  # no ops, metrics or source gaps
            self.assertEqual(cap.schema_version, gpuscope.SCHEMA_VERSION)
            ops = cap.host_ops()
            self.assertEqual(len(ops), 0)
            self.assertIn("input_shapes", ops.columns)
            self.assertEqual(len(cap.kernel_metrics()), 0)
            self.assertEqual(list(cap.source_gaps().columns), ["what", "detail"])

    def test_any_table_by_name(self) -> None:
        path = DATA / "bsr_spmm_baseline.gpuscope"
        with gpuscope.open(path, pandas=False) as cap:
            self.assertIn("synchronizations", cap.tables())
            self.assertEqual(len(cap.table("synchronizations")), sqlite_count(path, "synchronizations"))
            with self.assertRaisesRegex(gpuscope.Error, "no table or view 'nope'"):
                cap.table("nope")

    def test_report_sections(self) -> None:
        with gpuscope.open(DATA / "bsr_spmm_baseline.gpuscope") as cap:
            report = cap.report()
        self.assertEqual(report["format"], "gpuscope-report")
        keys = [s["key"] for s in report["sections"]]
        for key in ("run", "summary", "bottleneck", "recommendations", "kernels", "memory", "api"):
            self.assertIn(key, keys)
        for section in report["sections"]:
            self.assertEqual(set(section), {"key", "title", "lines", "tables", "notes"})

    def test_closed_capture(self) -> None:
        cap = gpuscope.open(DATA / "spawn.gpuscope")
        cap.close()
        with self.assertRaisesRegex(gpuscope.Error, "closed"):
            cap.kernels()
        self.assertIn("closed", repr(cap))


class OtherProfilersFiles(unittest.TestCase):
    def test_torch_profiler_trace(self) -> None:
        with gpuscope.open(KINETO, pandas=False) as cap:
            self.assertEqual(cap.run()["source_tool"], "torch.profiler")
            self.assertNotEqual(cap.capture_path, cap.path)  # a temporary import
            temporary = cap.capture_path
            ops = cap.host_ops()
            self.assertIn("aten::linear", {op["name"] for op in ops})
            self.assertEqual({op["category"] for op in ops},
                             {"cpu_op", "python_function", "user_annotation"})
            self.assertGreater(len(cap.kernels()), 0)
            self.assertIn("synchronization", {g["what"] for g in cap.source_gaps()})
            keys = [s["key"] for s in cap.report()["sections"]]
            self.assertIn("ops", keys)
        self.assertFalse(temporary.exists(), "the temporary import is removed on close")

    @unittest.skipUnless(HAVE_PANDAS, NO_PANDAS)
    def test_torch_profiler_trace_as_dataframes(self) -> None:
        with gpuscope.open(KINETO) as cap:
            ops = cap.host_ops()
            self.assertGreater((ops["name"] == "aten::linear").sum(), 0)
            self.assertTrue((ops["end_ns"] >= ops["start_ns"]).all())

    @unittest.skipUnless(NSYS.is_file(), f"{NSYS} is absent (GPUSCOPE_SHARED_DIR)")
    def test_nsys_export(self) -> None:
        with gpuscope.open(NSYS, pandas=False) as cap:
            self.assertEqual(cap.run()["source_tool"], "nsys")
            self.assertGreater(len(cap.kernels()), 0)
            self.assertGreater(len(cap.api_calls()), 0)

    def test_ncu_csv(self) -> None:
        with gpuscope.open(NCU_CSV, pandas=False) as cap:
            self.assertEqual(cap.run()["source_tool"], "ncu")
            self.assertGreater(len(cap.kernel_metrics()), 0)


class BadFiles(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="gpuscope-test-"))

    def tearDown(self) -> None:
        shutil.rmtree(self.dir)

    def assert_refused(self, path: Path, pattern: str) -> None:
        with self.assertRaises(gpuscope.Error) as caught:
            gpuscope.open(path)
        message = str(caught.exception)
        self.assertNotIn("\n", message)
        self.assertRegex(message, pattern)

    def test_missing_file(self) -> None:
        self.assert_refused(self.dir / "none.gpuscope", "no such file")
        self.assert_refused(self.dir, "not a file")

    def test_text_file(self) -> None:
        text = self.dir / "notes.gpuscope"
        text.write_text("not a capture\n")
        self.assert_refused(text, "not a format gpuscope reads")

    def test_truncated_file(self) -> None:
        data = (DATA / "spawn.gpuscope").read_bytes()
        cut = self.dir / "cut.gpuscope"
        cut.write_bytes(data[: len(data) // 2])
        self.assert_refused(cut, r"truncated \(\d+ of \d+ bytes\)")

    def test_newer_schema(self) -> None:
        newer = self.dir / "newer.gpuscope"
        shutil.copy(DATA / "spawn.gpuscope", newer)
        with sqlite3.connect(newer) as db:
            db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'",
                       (str(gpuscope.SCHEMA_VERSION + 1),))
        db.close()
        self.assert_refused(newer, f"newer gpuscope \\(schema v{gpuscope.SCHEMA_VERSION + 1}; "
                                   f"this one reads only v{gpuscope.SCHEMA_VERSION}\\); upgrade gpuscope")

    def test_older_schema_names_the_reader_as_the_cli_does(self) -> None:
        older = self.dir / "older.gpuscope"
        shutil.copy(DATA / "spawn.gpuscope", older)
        with sqlite3.connect(older) as db:
            db.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
        db.close()
        with self.assertRaises(gpuscope.Error) as caught:
            gpuscope.open(older)
        message = str(caught.exception)
        self.assertRegex(message, r"^\S+older\.gpuscope: written by an older gpuscope \(schema v3; this one reads "
                                  f"only v{gpuscope.SCHEMA_VERSION}\\): open it with gpuscope \\S+ built from "
                                  r"commit [0-9a-f]{7,}, ")
        cli = subprocess.run([gpuscope.find_binary(), "report", str(older)], capture_output=True, text=True,
                             check=False)
        self.assertNotEqual(cli.returncode, 0)
        self.assertEqual(cli.stderr.strip().removeprefix("gpuscope: "), message)

    def test_foreign_sqlite(self) -> None:
        other = self.dir / "other.sqlite"
        with sqlite3.connect(other) as db:
            db.execute("CREATE TABLE t (x)")
        db.close()
        self.assert_refused(other, "neither a gpuscope capture nor an nsys export")

    def test_refuses_what_the_cli_refuses_with_its_line(self) -> None:
        # Damaged captures that SQLite itself reads without complaint: a rewritten view, a kernel
        # whose launch configuration is missing, the strings out of order, a kernel name that is
        # not UTF-8. The CLI refuses each; the reader says the same line, and returns no rows.
        edits = {
            "view": "DROP VIEW kernels_named; DROP VIEW kernel_metrics_named; DROP VIEW kernels; "
                    "CREATE VIEW kernels AS SELECT 1 AS pid",
            "launch": "UPDATE kernels_packed SET launch_id = 100000",
            "strings": "UPDATE strings SET id = id + 1000000 WHERE id = 3",
            "utf8": "UPDATE strings SET value = CAST(X'61FF62' AS TEXT) WHERE id = (SELECT name_id FROM kernels)",
        }
        for name, sql in edits.items():
            with self.subTest(name):
                damaged = self.dir / f"damaged_{name}.gpuscope"
                shutil.copy(DATA / "spawn.gpuscope", damaged)
                with sqlite3.connect(damaged) as db:
                    db.executescript(sql)
                db.close()
                cli = subprocess.run([gpuscope.find_binary(), "report", str(damaged)], capture_output=True,
                                     text=True, errors="replace", check=False)
                if cli.returncode == 0:
                    # What the CLI reads, the reader reads too: a name that is not UTF-8 with
                    # U+FFFD where the CLI's JSON report has it.
                    self.assertEqual(name, "utf8")
                    with gpuscope.open(damaged, pandas=False) as cap:
                        self.assertIn("a\ufffdb", {k["name"] for k in cap.kernels()})
                    continue
                self.assertEqual(cli.returncode, 2, cli.stderr)
                with self.assertRaises(gpuscope.Error) as caught:
                    gpuscope.open(damaged)
                self.assertEqual(str(caught.exception), cli.stderr.strip().removeprefix("gpuscope: "))

    def test_agrees_with_the_cli_on_damaged_bytes(self) -> None:
        # The fuzz seeds' small captures cut short, with single bytes changed and with 64-byte
        # blocks zeroed (seeded, so every run tries the same files): where `gpuscope report`
        # refuses a file, the reader refuses it with the same line; where the CLI reads it, the
        # reader returns the kernels the CLI counts.
        seeds = sorted((DATA.parent / "fuzz" / "seeds" / "capture").glob("*.gpuscope"))
        self.assertTrue(seeds)
        rng = random.Random(20261129)
        binary = gpuscope.find_binary()
        for seed in seeds:
            original = seed.read_bytes()
            variants = {f"cut{i}": original[: rng.randrange(1, len(original))] for i in range(4)}
            for i in range(8):
                data = bytearray(original)
                data[rng.randrange(len(data))] = rng.randrange(256)
                variants[f"byte{i}"] = bytes(data)
            for i in range(4):
                data = bytearray(original)
                at = rng.randrange(len(data) - 64)
                data[at:at + 64] = bytes(64)
                variants[f"zero{i}"] = bytes(data)
            for name, data in variants.items():
                with self.subTest(seed=seed.name, variant=name):
                    damaged = self.dir / f"{seed.stem}_{name}.gpuscope"
                    damaged.write_bytes(data)
                    cli = subprocess.run([binary, "query", str(damaged), "SELECT COUNT(*) FROM kernels_named"],
                                         capture_output=True, text=True, errors="replace", check=False)
                    self.assertIn(cli.returncode, (0, 2), cli.stderr)
                    if cli.returncode == 2:
                        with self.assertRaises(gpuscope.Error) as caught:
                            gpuscope.open(damaged).close()
                        self.assertEqual(str(caught.exception), cli.stderr.strip().removeprefix("gpuscope: "))
                    else:
                        with gpuscope.open(damaged, pandas=False) as cap:
                            self.assertEqual(len(cap.kernels()), int(cli.stdout))

    def test_no_binary(self) -> None:
        saved = os.environ.get("GPUSCOPE_BINARY")
        os.environ["GPUSCOPE_BINARY"] = str(self.dir / "gpuscope")
        try:
            self.assert_refused(KINETO, "GPUSCOPE_BINARY=.*not an executable file")
        finally:
            if saved is None:
                del os.environ["GPUSCOPE_BINARY"]
            else:
                os.environ["GPUSCOPE_BINARY"] = saved


if __name__ == "__main__":
    unittest.main()
