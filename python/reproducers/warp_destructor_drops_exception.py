# finding: warp LIFE-2 producer-violation: the capsule destructor of __dlpack__ (a ctypes callback) fails on an exception in flight and drops it: list() of a generator that yields a capsule and then raises ends in SystemError, not the RuntimeError
# env: frameworks
# expect: raises SystemError: .*returned NULL without setting an exception
import warp
def exports_then_raises(): yield warp.array([1.0], dtype=warp.float32, device="cpu").__dlpack__(); raise RuntimeError("in flight")
list(exports_then_raises())  # list() drops the yielded capsule while the RuntimeError propagates
