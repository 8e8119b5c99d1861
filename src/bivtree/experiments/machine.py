"""The machine and its load in one line each, for benchmark and experiment reports."""

import os
import platform
import shutil
import subprocess

__all__ = ["machine_description", "machine_load"]


def machine_load():
    """``uptime``'s line (time, uptime, users, load averages), or the load averages alone
    where the command is missing.

    Returns
    -------
    str
    """
    if shutil.which("uptime"):
        result = subprocess.run(["uptime"], capture_output=True, text=True, check=False)
        if result.returncode == 0:
            return result.stdout.strip()
    return "load average: " + ", ".join(f"{v:.2f}" for v in os.getloadavg())


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
