# SPDX-License-Identifier: GPL-3.0-or-later
"""`python -m dimscope.worker`: the export worker (docs/worker-protocol.md)."""

import os

# Before torch is imported: its CPU allocator reads this once. Allocations of 2 MB and
# more are then aligned to 2 MB and advised as transparent huge pages, one page fault a
# huge page instead of one every 4 KB. A model's weights, their loads in the new
# interpreters (which inherit it) and the probes' activations are such allocations; on a
# virtual machine, where a page fault costs 13-15 us, it took a 0.5B model's export from
# 151 s to 131 s (issue 29). Where the kernel has transparent huge pages off it changes
# nothing; a user's own value (THP_MEM_ALLOC_ENABLE=0) is kept.
os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")

if __name__ == "__main__":
    from dimscope.worker.server import main

    main()
