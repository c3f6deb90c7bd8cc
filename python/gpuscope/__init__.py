"""Read gpuscope captures from Python (notebooks, scripts).

    import gpuscope
    cap = gpuscope.open("run.gpuscope")      # or an nsys .sqlite, a torch.profiler .json(.gz), an ncu .csv
    cap.kernels()                           # pandas DataFrame (list of dicts without pandas)
    cap.report()["sections"]                # the JSON report as a dict

Times are integer nanoseconds on the capture host's CLOCK_REALTIME, as in the file; sizes are
bytes. Tables and columns are those of docs/schema.md; docs/python.md describes this module.
Pure Python and the standard library; pandas is used only when it is importable.
"""
from ._capture import SCHEMA_VERSION, Capture, Error, find_binary, open

__all__ = ["SCHEMA_VERSION", "Capture", "Error", "find_binary", "open"]
