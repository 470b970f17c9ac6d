# finding: paddle VER-4 no-attribute-error: paddle.from_dlpack(None) raises ValueError (it takes None for a capsule), not the AttributeError the Array API's from_dlpack requires since 2023.12
# env: frameworks
# expect: raises ValueError: .InvalidArgument. from_dlpack received an invalid capsule
import paddle
paddle.from_dlpack(None)
