"""Large blocks go back to the system when freed (glibc only).

glibc's malloc serves a request of 128 KiB or more with mmap, and returns it when freed;
but after such a block is freed it raises that threshold (up to 32 MiB), so the next
20 MiB string of an import comes from the heap and stays in the process's resident set
after it is freed: three hostile imports in a row left the server at 480 MB. Fixing the
threshold at 1 MiB (mallopt M_MMAP_THRESHOLD, which also turns the dynamic adjustment
off) makes every large string, request body and parse buffer an mmap of its own, gone
when freed, so the server's peak is the largest request's, not the sum of them.
"""

from __future__ import annotations

import ctypes
import ctypes.util

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
THRESHOLD = 1024 * 1024


def return_large_blocks() -> bool:
    """Set the threshold; False where the C library is not glibc."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, 4 * THRESHOLD))
