"""How much memory the system has free: for the clear ``MemoryError`` of a copy too large.

Read through the module (``_memory.available_memory()``) so that a test can
make the machine look small.
"""

import os


def available_memory():
    """Bytes of physical memory available now, or None where the system does not say."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
