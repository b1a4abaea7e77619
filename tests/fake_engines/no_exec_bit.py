#!/usr/bin/env python3
"""Would answer correctly, but its file mode is 0644 (no exec bit)."""
print("2 ...x..o.oxooxxxoxo")
