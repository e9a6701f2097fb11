# SPDX-License-Identifier: GPL-3.0-or-later
"""`python -m dimscope.worker`: the export worker (docs/worker-protocol.md)."""

if __name__ == "__main__":
    from dimscope.worker.server import main

    main()
