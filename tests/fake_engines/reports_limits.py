#!/usr/bin/env python3
"""Reports its resource limits on stderr as its first act (soft limits: AS FSIZE CORE CPU, -1 for
none), then prints the legal answer to the seed position."""
import resource
import sys

names = ("RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_CORE", "RLIMIT_CPU")
print(" ".join(str(resource.getrlimit(getattr(resource, name))[0]) for name in names), file=sys.stderr)
print("2 ...x..o.oxooxxxoxo")
