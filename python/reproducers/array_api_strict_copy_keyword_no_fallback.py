# finding: array_api_strict VER-5 no-version-fallback: array_api_strict.from_dlpack(x, copy=True) goes through numpy.from_dlpack, which passes copy to x.__dlpack__ and gives up on the TypeError of a producer with the old signature instead of asking again without it
# env: frameworks
# expect: raises TypeError: .*unexpected keyword argument
import array_api_strict as xp
from dlconform_capsule import Producer
xp.from_dlpack(Producer("f32", [4], legacy=True), copy=True)
