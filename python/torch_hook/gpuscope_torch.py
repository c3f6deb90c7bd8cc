"""PyTorch ops and module paths as NVTX ranges, for `gpuscope profile --pytorch[=ops|shapes|modules]`.

What each level turns on, once torch has been imported (no change to the user's code):
  ops      torch's own NVTX emission (torch.autograd.profiler.emit_nvtx): a range per op, named
           "aten::mm, seq = 42, op_id = 7" -- seq pairs a forward op with its backward
  shapes   the same with the input shapes (", sizes = [[64, 512], [512, 512]]")
  modules  shapes, plus a range per nn.Module forward named "gpuscope.module: MLP.layers.0"
gpuscope's importer turns these ranges into ops and modules (src/importers/torch_nvtx/).

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
    record_shapes = level in ("shapes", "modules")
    # emit_nvtx is torch's supported way to name every op in NVTX; entering it once keeps it on
    # for the rest of the process (the profiler state is per thread and follows autograd's
    # worker threads). It is left open on purpose: exit tears down with the process.
    nvtx = torch.autograd.profiler.emit_nvtx(enabled=True, record_shapes=record_shapes)
    nvtx.__enter__()
    _state["emit_nvtx"] = nvtx
    if level == "modules":
        _hook_modules(torch)


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
            root = type(module).__name__
            for name, child in module.named_modules():
                paths.setdefault(child, root + "." + name if name else root)
            path = paths[module]
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
