"""A one-line description of the machine, for benchmark and experiment reports."""

import os
import platform

__all__ = ["machine_description"]


def machine_description():
    """CPU model, core count, operating system and the versions that matter for timings.

    Returns
    -------
    str
    """
    import numba
    import numpy as np
    import sklearn

    from .. import __version__

    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (f"{cpu}, {os.cpu_count()} logical cores, {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}, numpy {np.__version__}, "
            f"scikit-learn {sklearn.__version__}, numba {numba.__version__}, "
            f"bivtree {__version__}")
