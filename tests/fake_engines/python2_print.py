#!/usr/bin/env python3
"""Python-2-only syntax (print statement): a SyntaxError under python3."""
print "2 ...x..o.oxooxxxoxo"
