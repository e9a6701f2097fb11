"""dimscope's Python side: record forward calls into a capture, run the export worker."""

__version__ = "0.1.0"
