"""PyTorch ops and module paths, for `gpuscope profile --pytorch[=ops|shapes|modules]`.

What each level turns on, once torch has been imported (no change to the user's code):
  ops      a RecordFunction observer of every op (gpuscope_ops_observer.cpp), built with g++
           against this torch at first use and cached (GPUSCOPE_CACHE_DIR, else
           $XDG_CACHE_HOME/gpuscope or ~/.cache/gpuscope); it hands each op's name, sequence
           number and times to the capture library. Where it cannot be built or loaded, torch's
           own NVTX emission as for shapes, without the shapes
  shapes   torch's own NVTX emission (torch.autograd.profiler.emit_nvtx): a range per op, named
           "aten::mm, seq = 42, op_id = 7, sizes = [[64, 512], [512, 512]]" -- seq pairs a
           forward op with its backward
  modules  shapes, plus a range per nn.Module forward named "gpuscope.module: MLP.layers.0"
gpuscope's importer turns the observer's records and these ranges into ops and modules
(src/importers/spool/, src/importers/torch_nvtx/).

Costs are paid only by the program's own threads that run ops; they are measured in
docs/performance.md. Anything unexpected (torch too old, no CUDA, an API that moved) disables
the hook with one "gpuscope:" line on stderr and leaves the program alone.
"""
import sys

MODULE_PREFIX = "gpuscope.module: "
_LEVELS = ("ops", "shapes", "modules")
_state = {"level": "", "enabled": False}


def _warn(message):
    sys.stderr.write("gpuscope: --pytorch: %s\n" % message)


def arm(level):
    """Enable the hook for `level` as soon as torch is imported (now, if it already is)."""
    if not level:
        return
    if level not in _LEVELS:
        _warn("unknown level %r (ops, shapes or modules); disabled" % level)
        return
    _state["level"] = level
    if "torch" in sys.modules:
        _enable_safely()
    else:
        sys.meta_path.insert(0, _TorchImportWatcher())


class _TorchImportWatcher:
    """A meta-path finder that only watches: when `torch` has finished importing, enable."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        import importlib.machinery
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        original = spec.loader.exec_module

        def exec_module(module):
            original(module)
            _enable_safely()

        spec.loader.exec_module = exec_module
        return spec


def _enable_safely():
    if _state["enabled"]:
        return
    _state["enabled"] = True
    try:
        _enable(_state["level"])
    except Exception as error:  # fail open
        _warn("disabled: %s" % (str(error).splitlines() or ["?"])[0])


def _enable(level):
    import torch
    if level == "ops":
        try:
            _install_observer(torch)
            return
        except Exception as error:  # fail open, to emit_nvtx
            _warn("op observer unavailable (%s); ops are named through emit_nvtx instead"
                  % (str(error).splitlines() or ["?"])[0])
    record_shapes = level in ("shapes", "modules")
    # emit_nvtx is torch's supported way to name every op in NVTX; entering it once keeps it on
    # for the rest of the process (the profiler state is per thread and follows autograd's
    # worker threads). It is left open on purpose: exit tears down with the process.
    nvtx = torch.autograd.profiler.emit_nvtx(enabled=True, record_shapes=record_shapes)
    nvtx.__enter__()
    _state["emit_nvtx"] = nvtx
    if level == "modules":
        _hook_modules(torch)


def _install_observer(torch):
    import ctypes
    library = ctypes.CDLL(_observer_library(torch))
    if library.gpuscope_ops_observer_install() != 0:
        raise RuntimeError("gpuscope's preload library is not in this process")
    _state["observer"] = library  # loaded for the rest of the process


def _observer_library(torch):
    """The observer built against this torch: from the cache, else built now (once)."""
    import hashlib
    import os
    import subprocess
    from torch.utils import cpp_extension
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpuscope_ops_observer.cpp")
    with open(source, "rb") as f:
        text = f.read()
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    compiler = os.environ.get("CXX") or "g++"
    key = hashlib.sha256(text + ("|%s|%s|%d|%s" % (torch.__version__, torch.__file__, abi, compiler)).encode())
    cache = os.environ.get("GPUSCOPE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "gpuscope")
    path = os.path.join(cache, "ops_observer-%s.so" % key.hexdigest()[:16])
    if os.path.exists(path):
        return path
    os.makedirs(cache, exist_ok=True)
    sys.stderr.write("gpuscope: --pytorch=ops: building the op observer for torch %s (once; kept in %s)\n"
                     % (torch.__version__, cache))
    # Each process builds to a file of its own and renames it: ranks that start together race safely.
    partial = "%s.%d.tmp" % (path, os.getpid())
    libraries = cpp_extension.library_paths()
    command = [compiler, "-O2", "-std=c++17", "-shared", "-fPIC", "-D_GLIBCXX_USE_CXX11_ABI=%d" % abi]
    command += ["-I" + p for p in cpp_extension.include_paths()]
    command += [source, "-o", partial] + ["-L" + p for p in libraries] + ["-lc10", "-ltorch_cpu"]
    command += ["-Wl,-rpath," + p for p in libraries]
    environment = dict(os.environ)
    for name in ("LD_PRELOAD", "CUDA_INJECTION64_PATH", "PYTHONPATH"):  # the compiler is not the program
        environment.pop(name, None)
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=600, env=environment)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RuntimeError("cannot run %s: %s" % (compiler, error))
    if result.returncode != 0:
        if os.path.exists(partial):
            os.remove(partial)
        lines = [l for l in result.stderr.splitlines() if "error" in l] or result.stderr.splitlines() or ["?"]
        raise RuntimeError("%s failed: %s" % (compiler, lines[0].strip()))
    os.replace(partial, path)
    return path


def _module_root(module):
    """The name of a module called with no module around it, and the module whose children it
    names. torch.compile(model) returns an OptimizedModule wrapping the model in `_orig_mod`:
    only the wrapper's hooks run (the compiled graph holds the rest), so it is named after the
    model ("Net (compiled)"), and children it runs eagerly after a graph break are the model's."""
    inner = getattr(module, "_orig_mod", None)
    if inner is not None and type(module).__name__ == "OptimizedModule":
        return type(inner).__name__ + " (compiled)", inner
    return type(module).__name__, module


def _hook_modules(torch):
    import threading
    import weakref
    from torch.nn.modules import module as module_api
    push = torch.cuda.nvtx.range_push
    pop = torch.cuda.nvtx.range_pop
    paths = weakref.WeakKeyDictionary()  # module -> "Root.child.grandchild"
    local = threading.local()  # .stack: (module, path) open on this thread's call chain
    # torch.compile (Dynamo) inlines global module hooks into the graphs it traces, and fails on
    # ours ("UnspecializedNNModuleVariable ... is already tracked for mutation") when it meets the
    # weak-keyed path table: the program's compile would fail. Inside a trace the hooks return at
    # once; the compiled graph has no module ranges, its kernels fall under the ranges of the
    # modules called eagerly around it. A graph break can run one of a module's two hooks in the
    # trace and the other eagerly, so `after` closes a range only for a module it opened.
    compiler = getattr(torch, "compiler", None)
    compiling = getattr(compiler, "is_compiling", None) or (lambda: False)

    def stack_of_thread():
        stack = getattr(local, "stack", None)
        if stack is None:
            stack = local.stack = []
        return stack

    def path_of(module, stack):
        path = paths.get(module)
        if path is not None:
            return path
        if stack:
            # Not a child of an already named root (built on the fly): under its caller.
            path = stack[-1][1] + "." + type(module).__name__
        else:
            root, named = _module_root(module)
            for name, child in named.named_modules():
                paths.setdefault(child, root + "." + name if name else root)
            path = paths.setdefault(module, root)
        return path

    def before(module, args):
        if compiling():
            return
        stack = stack_of_thread()
        path = path_of(module, stack)
        stack.append((module, path))
        push(MODULE_PREFIX + path)

    def after(module, args, output):
        if compiling():
            return
        stack = stack_of_thread()
        if not any(opened is module for opened, _ in stack):
            return
        while stack:  # down to this module's range: a child whose `after` never ran closes too
            opened, _ = stack.pop()
            pop()
            if opened is module:
                return

    module_api.register_module_forward_pre_hook(before)
    module_api.register_module_forward_hook(after, always_call=True)
