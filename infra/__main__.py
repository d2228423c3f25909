"""The gpupools Pulumi program: the packaged stack program, so ``pulumi up`` here and ``gpupools plan`` agree.

All wiring lives in ``gpupools.platform`` (the ``GpuPlatform`` component and ``program.main``).
"""

from gpupools.platform.program import main

main()
