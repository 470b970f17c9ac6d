# finding: mlx STRM-1 stream-accepted-on-cpu: mlx.core.array.__dlpack__ exports a CPU array for stream=1 and stream=-1, where the Array API says that on CPU "only None is accepted"
# env: frameworks
# expect: exit 0
import mlx.core as mx
x = mx.arange(4.0)
for stream in (1, -1):
    assert type(x.__dlpack__(stream=stream)).__name__ == "PyCapsule", f"fixed for {stream}"
