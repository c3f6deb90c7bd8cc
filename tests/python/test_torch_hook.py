"""`profile --pytorch`'s start-up hook (python/torch_hook/) against a stand-in torch: which way it
names ops, and that it falls back to emit_nvtx, with one line, when the op observer cannot be
built. The observer itself is built and checked against a real torch on a GPU host
(tests/gpu/check_torch_ops.sh)."""
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

HOOK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "torch_hook")

FAKE_TORCH = {
    "torch/__init__.py": "__version__ = '0.0+stand-in'\nfrom . import _C, autograd, utils\n",
    "torch/_C.py": "_GLIBCXX_USE_CXX11_ABI = True\n",
    "torch/autograd/__init__.py": "from . import profiler\n",
    "torch/autograd/profiler.py": textwrap.dedent("""\
        entered = []
        class emit_nvtx:
            def __init__(self, enabled=True, record_shapes=False):
                self.record_shapes = record_shapes
            def __enter__(self):
                entered.append(self.record_shapes)
                return self
        """),
    "torch/utils/__init__.py": "from . import cpp_extension\n",
    # Headers without ATen: building the observer fails as it would against a torch whose API moved.
    "torch/utils/cpp_extension.py": textwrap.dedent("""\
        import os
        def include_paths():
            return [os.path.dirname(__file__)]
        def library_paths():
            return [os.path.dirname(__file__)]
        """),
}


class TorchHookTest(unittest.TestCase):
    def run_hook(self, level):
        with tempfile.TemporaryDirectory() as root:
            for name, text in FAKE_TORCH.items():
                path = os.path.join(root, "fake", name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text)
            env = dict(os.environ)
            env.update({"PYTHONPATH": os.pathsep.join([os.path.abspath(HOOK), os.path.join(root, "fake")]),
                        "GPUSCOPE_PYTORCH": level, "GPUSCOPE_CACHE_DIR": os.path.join(root, "cache")})
            result = subprocess.run(
                [sys.executable, "-c", "import torch; print(torch.autograd.profiler.entered)"],
                capture_output=True, text=True, env=env, timeout=300)
            self.assertEqual(result.returncode, 0, result.stderr)
            cached = os.listdir(os.path.join(root, "cache")) if os.path.isdir(os.path.join(root, "cache")) else []
            return result.stdout.strip(), result.stderr, cached

    def test_ops_fall_back_to_emit_nvtx_when_the_observer_cannot_be_built(self):
        stdout, stderr, cached = self.run_hook("ops")
        self.assertEqual(stdout, "[False]", "emit_nvtx on, without shapes")
        lines = [line for line in stderr.splitlines() if "op observer unavailable" in line]
        self.assertEqual(len(lines), 1, stderr)
        self.assertTrue(lines[0].startswith("gpuscope: --pytorch: "), lines[0])
        self.assertEqual([name for name in cached if name.endswith(".tmp")], [], "no partial build left behind")

    def test_shapes_and_modules_name_ops_through_emit_nvtx(self):
        for level in ("shapes", "modules"):
            stdout, stderr, cached = self.run_hook(level)
            self.assertEqual(stdout, "[True]", level)
            self.assertNotIn("op observer", stderr)
            self.assertEqual(cached, [])


class ModuleRootTest(unittest.TestCase):
    """A module called with no module around it names its path's root."""

    def setUp(self):
        sys.path.insert(0, os.path.abspath(HOOK))
        import gpuscope_torch
        self.root = gpuscope_torch._module_root

    def tearDown(self):
        sys.path.remove(os.path.abspath(HOOK))

    def test_a_model_by_its_class(self):
        class Net:
            pass
        net = Net()
        self.assertEqual(self.root(net), ("Net", net))

    def test_torch_compile_names_the_wrapped_model(self):
        class Net:
            pass

        class OptimizedModule:  # torch._dynamo.eval_frame.OptimizedModule holds the model in _orig_mod
            def __init__(self, inner):
                self._orig_mod = inner
        net = Net()
        self.assertEqual(self.root(OptimizedModule(net)), ("Net (compiled)", net))


if __name__ == "__main__":
    unittest.main()
