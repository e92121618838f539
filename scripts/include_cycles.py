#!/usr/bin/env python3
"""Include cycles between the components of server/ (docs/architecture.md, "Layers").

A component is a .hpp/.cpp pair (a file's path without its extension). A -> B when a file of A
includes B's header by a quoted name, resolved beside the includer first, then from server/ (the
include path: "core/hub.hpp"), then by file name anywhere in server/ (names are unique). Prints
each cycle as a->b->a and exits 1 if there is one; exits 0, silent, if there is none.

usage: include_cycles.py [SERVER_DIR]   (default: server/ beside this script's parent)
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "server")
files = {}
for folder, _, names in os.walk(root):
    for name in names:
        if name.endswith((".hpp", ".cpp")):
            files.setdefault(name, []).append(os.path.join(folder, name))


def component(path):
    return os.path.splitext(os.path.relpath(path, root))[0]


edges = {}
for paths in files.values():
    for path in paths:
        with open(path, errors="ignore") as f:
            text = f.read()
        for included in re.findall(r'#include\s+"([^"]+)"', text):
            beside = os.path.normpath(os.path.join(os.path.dirname(path), included))
            from_root = os.path.normpath(os.path.join(root, included))
            if os.path.exists(beside):
                targets = [beside]
            elif os.path.exists(from_root):
                targets = [from_root]
            else:
                targets = files.get(os.path.basename(included), [])
            for target in targets:
                if component(target) != component(path):
                    edges.setdefault(component(path), set()).add(component(target))

cycles, state, stack = [], {}, []


def visit(node):
    state[node] = "open"
    stack.append(node)
    for nxt in sorted(edges.get(node, ())):
        if state.get(nxt) == "open":
            cycles.append(stack[stack.index(nxt):] + [nxt])
        elif nxt not in state:
            visit(nxt)
    stack.pop()
    state[node] = "done"


for node in sorted(edges):
    if node not in state:
        visit(node)
for cycle in cycles:
    print("->".join(cycle))
sys.exit(1 if cycles else 0)
