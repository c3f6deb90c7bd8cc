"""The capture reader: gpuscope.open() and the Capture it returns (docs/python.md)."""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
import urllib.parse
from pathlib import Path
from typing import Any

# The capture schema this module reads, and the only one (docs/schema.md, "Versions");
# kSchemaVersion in the C++ store.
SCHEMA_VERSION = 14
# What reads older captures (src/common/older_formats.h, kOlderReaders): the refusal names the
# newest build that reads the file's schema, as the CLI's does. (build, first schema, last schema)
_OLDER_READERS = [
    ("gpuscope 0.1.0 built from commit f998382", 1, 10),
    ("gpuscope 0.1.0 built from commit 4ceb3eb", 10, 10),
    ("gpuscope 0.1.0 built from commit 7491957", 11, 11),
    ("gpuscope 0.1.0 built from commit 2a12258", 12, 12),
    ("gpuscope 0.1.0 built from commit 7fad77a", 13, 13),
]


def _older_reader_of(schema: int) -> str:
    for build, first, last in reversed(_OLDER_READERS):
        if first <= schema <= last:
            return f"{build}, which reads schemas v{first}" + ("" if first == last else f" to v{last}")
    return "an older gpuscope"

_SQLITE_MAGIC = b"SQLite format 3\x00"


class Error(Exception):
    """Anything wrong with a file, the gpuscope binary or a request; the message is one line."""


Table = Any  # a pandas.DataFrame, or a list of dicts (column name -> value) without pandas


def open(path: str | os.PathLike[str], *, pandas: bool | None = None) -> Capture:  # noqa: A001
    """Open a capture, or another profiler's file (nsys SQLite export, torch.profiler JSON trace,
    ncu CSV), which the gpuscope binary imports into a temporary capture first.

    pandas: None (default) returns DataFrames when pandas is importable and lists of dicts
    otherwise; False always lists of dicts; True DataFrames or an Error if pandas is missing.
    """
    return Capture(path, pandas=pandas)


def find_binary() -> str:
    """The gpuscope CLI: $GPUSCOPE_BINARY, else bin/gpuscope of the prefix this package is
    installed under, else gpuscope on PATH. Raises Error when there is none."""
    override = os.environ.get("GPUSCOPE_BINARY")
    if override:
        if not os.access(override, os.X_OK):
            raise Error(f"GPUSCOPE_BINARY={override}: not an executable file")
        return override
    # Installed as PREFIX/lib/python3/dist-packages/gpuscope (or lib/python3.X/site-packages):
    # PREFIX is 3 or 4 folders above the package.
    package_dir = Path(__file__).resolve().parent
    for prefix in package_dir.parents[:4]:
        candidate = prefix / "bin" / "gpuscope"
        if os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("gpuscope")
    if found:
        return found
    raise Error("the gpuscope binary was not found (next to this package or on PATH); "
                "set GPUSCOPE_BINARY to its path")


def _run_cli(args: list[str]) -> str:
    """Runs gpuscope with args and returns its stdout; its error line becomes an Error."""
    binary = find_binary()
    # Bytes that are not UTF-8 (names, SQLite quoting a damaged schema) become U+FFFD, as in the
    # tables this reader returns, instead of an exception.
    result = subprocess.run([binary, *args], capture_output=True, text=True, errors="replace", check=False)
    if result.returncode != 0:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        message = lines[-1] if lines else f"exit code {result.returncode}"
        # The CLI prefixes its messages with "gpuscope: "; ours name the file first.
        raise Error(message.removeprefix("gpuscope: "))
    return result.stdout


def _refuse_as_the_cli_does(path: Path) -> None:
    """A file this reader could not read: raises the CLI's own line for it, so a damaged file is
    refused in the same words by both (returns when the CLI reads the file, or is not there)."""
    try:
        find_binary()
    except Error:
        return
    _run_cli(["query", str(path), "SELECT 1"])


def _check_sqlite_header(path: Path, header: bytes) -> None:
    """Refuses an SQLite file cut short by a copy, as the CLI does (src/store/sqlite_db.cpp):
    the header's page count times page size must fit in the file."""
    page_size = int.from_bytes(header[16:18], "big")
    if page_size == 1:
        page_size = 65536  # the header's encoding of 64 KiB pages
    change_counter = int.from_bytes(header[24:28], "big")
    page_count = int.from_bytes(header[28:32], "big")
    valid_for = int.from_bytes(header[92:96], "big")  # the page count is valid when this matches
    expected = page_size * page_count
    size = path.stat().st_size
    if valid_for == change_counter and page_count > 0 and size < expected:
        raise Error(f"{path}: the file is truncated ({size} of {expected} bytes); "
                    "copy it again from its source")


class Capture:
    """One capture, read-only. Each table method reads the file when called (nothing is cached)
    and returns a DataFrame or a list of dicts; times are ns (CLOCK_REALTIME), sizes bytes."""

    path: Path          # the file as given
    capture_path: Path  # the capture read: path itself, or a temporary import of it
    schema_version: int

    def __init__(self, path: str | os.PathLike[str], *, pandas: bool | None = None) -> None:
        self.path = Path(path)
        self._use_pandas = _pandas_wanted(pandas)
        self._tmpdir: tempfile.TemporaryDirectory[str] | None = None
        self._db: sqlite3.Connection | None = None
        if not self.path.exists():
            raise Error(f"{self.path}: no such file")
        if not self.path.is_file():
            raise Error(f"{self.path}: not a file")
        try:
            with self.path.open("rb") as f:
                header = f.read(100)
        except OSError as e:
            raise Error(f"{self.path}: cannot read the file ({e.strerror})") from None
        self.capture_path = self.path
        try:
            if header.startswith(_SQLITE_MAGIC) and len(header) == 100:
                _check_sqlite_header(self.path, header)
                self._db = self._connect(self.path)
                if "meta" not in self._names():
                    self.close()  # an SQLite file of another tool (nsys): import it below
            if self._db is None:
                self._import()
            self.schema_version = self._read_schema_version()
            if self.capture_path == self.path:
                # One reader of truth: the CLI reads the whole capture with every check it makes
                # (integrity, views, codes, references), so a file it refuses is refused here with
                # its line, never read into partial or altered rows.
                _run_cli(["query", str(self.path), "SELECT 1"])
        except Error:
            self.close()
            if self.capture_path == self.path and header.startswith(_SQLITE_MAGIC):
                _refuse_as_the_cli_does(self.path)
            raise

    # --- the tables -------------------------------------------------------------------------

    def kernels(self) -> Table:
        """Kernel launches (view kernels_named): GPU start_ns/end_ns, launch configuration,
        registers, shared memory (bytes), name and mangled_name."""
        return self.table("kernels_named")

    def api_calls(self) -> Table:
        """CUDA runtime and driver calls (api_calls_named): CPU start_ns/end_ns inside the call,
        thread, return code, correlation_id to the GPU work, name."""
        return self.table("api_calls_named")

    def memcpys(self) -> Table:
        """Copies: copy_kind (HtoD, ...), src_kind/dst_kind (pageable, pinned, ...), bytes,
        GPU start_ns/end_ns."""
        return self.table("memcpys")

    def memsets(self) -> Table:
        """Memsets: memory_kind, value, bytes, GPU start_ns/end_ns."""
        return self.table("memsets")

    def nvtx_ranges(self) -> Table:
        """NVTX ranges (nvtx_ranges_named): thread, CPU start_ns/end_ns, depth, name, domain."""
        return self.table("nvtx_ranges_named")

    def host_ops(self) -> Table:
        """Framework ops on CPU threads, e.g. PyTorch's aten::addmm from a torch.profiler trace
        (host_ops_named): start_ns/end_ns, depth, sequence_number, name, category,
        input_shapes."""
        return self.table("host_ops_named")

    def kernel_metrics(self) -> Table:
        """Hardware metrics, one row per metric per measured launch (kernel_metrics_named):
        kernel, start_ns, duration_ns, metric (Perfworks name), value in the metric's unit.
        Empty without --metrics."""
        return self.table("kernel_metrics_named")

    def devices(self) -> Table:
        """GPUs each process saw: name, SMs, clocks (kHz), memory sizes (bytes), limits."""
        return self.table("devices")

    def processes(self) -> Table:
        """CUDA processes: pid, parent_pid, command_line, start_ns/end_ns, clean_shutdown,
        CUDA versions, capture_status."""
        return self.table("processes")

    def data_loss(self) -> Table:
        """What the capture lost or could not record: pid (0 = whole run), what, count, detail."""
        return self.table("data_loss")

    def source_gaps(self) -> Table:
        """What an imported file's source does not record (what, detail); empty for gpuscope's
        own captures."""
        return self.table("source_gaps")

    def run(self) -> dict[str, Any]:
        """The run row: command_line, host, start_ns/end_ns, exit_code, options, source_tool
        (empty for gpuscope's own capture, else nsys, torch.profiler, ncu), ..."""
        columns, rows = self._select("run")
        if len(rows) != 1:
            raise Error(f"{self.path}: corrupt capture (expected one run row, found {len(rows)})")
        return dict(zip(columns, rows[0]))

    def tables(self) -> list[str]:
        """Names of the file's tables and views (docs/schema.md describes each)."""
        return sorted(self._names())

    def table(self, name: str) -> Table:
        """Any table or view of the file by name, e.g. "synchronizations" or "nvtx_marks"."""
        if name not in self._names():
            raise Error(f"{self.path}: no table or view '{name}' (schema v{self.schema_version}; "
                        "see tables())")
        return self._as_table(*self._select(name))

    # --- the report -------------------------------------------------------------------------

    def report(self, top: int | None = None) -> dict[str, Any]:
        """`gpuscope report --format json` of this capture, as a dict: format, format_version,
        title and sections (each with key, title, lines, tables, notes; docs/report.md).
        top: rows per table (0 = all); None = the CLI's default."""
        self._require_open()
        args = ["report", str(self.capture_path), "--format", "json"]
        if top is not None:
            args += ["--top", str(top)]
        output = _run_cli(args)
        try:
            return json.loads(output)
        except json.JSONDecodeError as e:
            raise Error(f"{self.path}: gpuscope report wrote invalid JSON ({e.msg})") from None

    # --- life cycle -------------------------------------------------------------------------

    def close(self) -> None:
        """Closes the file and removes a temporary import; the Capture is unusable after."""
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._tmpdir is not None:
            self._tmpdir.cleanup()
            self._tmpdir = None

    def __enter__(self) -> Capture:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._db is None else f"schema v{self.schema_version}"
        return f"<gpuscope.Capture {str(self.path)!r} ({state})>"

    # --- internals --------------------------------------------------------------------------

    def _connect(self, path: Path) -> sqlite3.Connection:
        # Read-only through a URI: the file is never modified, and a missing file is an error
        # instead of a new empty database. quote() keeps '?' or '#' in a name from ending it.
        uri = "file:" + urllib.parse.quote(str(path.resolve())) + "?mode=ro"
        try:
            db = sqlite3.connect(uri, uri=True)
        except sqlite3.Error as e:
            raise Error(f"{path}: cannot open ({e})") from None
        # Names are bytes as the program gave them; the CLI reads them so, and its JSON report
        # shows bytes that are not UTF-8 as U+FFFD. The same here, instead of an exception.
        db.text_factory = lambda data: data.decode("utf-8", "replace")
        return db

    def _import(self) -> None:
        """Imports another profiler's file into a temporary capture with `gpuscope import`."""
        self._tmpdir = tempfile.TemporaryDirectory(prefix="gpuscope-")
        target = Path(self._tmpdir.name) / "capture"
        _run_cli(["import", "-o", str(target), str(self.path)])
        self.capture_path = target.with_suffix(".gpuscope")
        self._db = self._connect(self.capture_path)

    def _require_open(self) -> sqlite3.Connection:
        if self._db is None:
            raise Error(f"{self.path}: the capture is closed")
        return self._db

    def _names(self) -> set[str]:
        rows = self._query("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
        return {row[0] for row in rows}

    def _select(self, name: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        # name comes from sqlite_master (table() checks it), so quoting it is enough.
        cursor = self._require_open().cursor()
        try:
            cursor.execute(f'SELECT * FROM "{name}"')
            rows = cursor.fetchall()
        except (sqlite3.Error, UnicodeDecodeError) as e:
            raise Error(f"{self.path}: cannot read {name} ({e})") from None
        return [d[0] for d in cursor.description], rows

    def _query(self, sql: str) -> list[tuple[Any, ...]]:
        try:
            return self._require_open().execute(sql).fetchall()
        except (sqlite3.Error, UnicodeDecodeError) as e:  # e.g. "file is not a database", "malformed"
            raise Error(f"{self.path}: not a readable capture ({e})") from None

    def _read_schema_version(self) -> int:
        if "meta" not in self._names():
            raise Error(f"{self.path}: an SQLite database, but not a gpuscope capture (no meta table)")
        rows = self._query("SELECT value FROM meta WHERE key = 'schema_version'")
        if not rows:
            raise Error(f"{self.path}: not a gpuscope capture (no schema version)")
        text = str(rows[0][0])
        if not text.isdigit() or int(text) < 1:
            raise Error(f"{self.path}: corrupt capture (bad schema version '{text}')")
        version = int(text)
        if version < SCHEMA_VERSION:
            raise Error(f"{self.path}: written by an older gpuscope (schema v{version}; this one reads "
                        f"only v{SCHEMA_VERSION}): open it with {_older_reader_of(version)}")
        if version > SCHEMA_VERSION:
            raise Error(f"{self.path}: written by a newer gpuscope (schema v{version}; this one reads "
                        f"only v{SCHEMA_VERSION}); upgrade gpuscope")
        return version

    def _as_table(self, columns: list[str], rows: list[tuple[Any, ...]]) -> Table:
        if self._use_pandas:
            import pandas  # checked importable by _pandas_wanted

            return pandas.DataFrame.from_records(rows, columns=columns)
        return [dict(zip(columns, row)) for row in rows]


def _pandas_wanted(pandas: bool | None) -> bool:
    """Whether tables are DataFrames: pandas=None means when pandas is importable."""
    if pandas is False:
        return False
    try:
        import pandas as _  # noqa: F401  (optional dependency, imported only when asked)
    except ImportError:
        if pandas:
            raise Error("pandas=True, but pandas is not installed (Debian: apt install python3-pandas)") from None
        return False
    return True
