# finding: warp VER-4 no-attribute-error: warp.from_dlpack(None) raises TypeError, not the AttributeError the Array API's from_dlpack requires since 2023.12
# env: frameworks
# expect: raises TypeError: Expected a valid DLPack capsule
import warp
warp.from_dlpack(None)
