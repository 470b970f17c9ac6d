# finding: paddle VER-5 no-version-fallback: paddle.from_dlpack(x, copy=True) (and device="cpu") asks x.__dlpack__ again after the old signature's TypeError without max_version but still with copy (or dl_device), and gives up on the second TypeError
# env: frameworks
# expect: raises TypeError: .*unexpected keyword argument 'copy'
import paddle
from dlconform_capsule import Producer
paddle.from_dlpack(Producer("f32", [4], legacy=True), copy=True)
