"""gpuscope's Python start-up hook, put on PYTHONPATH by `gpuscope profile --pytorch`.

Python imports `sitecustomize` once at start-up. This one arms gpuscope_torch (beside it) to run
when the program imports torch, then hands over to the sitecustomize this one shadows, if any, so
a site's or virtualenv's own start-up code still runs. It never raises: a profiler must not
change what the program does (fail open).
"""
import os
import sys


def _chain_to_shadowed_sitecustomize():
    here = os.path.dirname(os.path.abspath(__file__))
    import importlib.machinery
    import importlib.util
    rest = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


try:
    import gpuscope_torch
    gpuscope_torch.arm(os.environ.get("GPUSCOPE_PYTORCH", ""))
except Exception as error:  # fail open
    sys.stderr.write("gpuscope: --pytorch disabled: %s\n" % (str(error).splitlines() or ["?"])[0])

try:
    _chain_to_shadowed_sitecustomize()
except Exception:
    # The shadowed file's own error, as Python would have shown it without gpuscope.
    import traceback
    traceback.print_exc()
