#!/usr/bin/env python3
"""The module graph of web/src, its cycles, and mechanism names in generic files (issue 9).

Every file of web/src (not src/bin/, a crate of its own) is a node; each `crate::a::b::…` path in it
(`use` lines and paths in code, comments and doc links excluded) is an edge to the file that
defines the longest matching module. Tarjan's algorithm finds the strongly connected components of
this graph, and of the graph of the top-level folders (lesson, live, ui, pages, mechanisms, and each
root file): any component with more than one node is an import cycle.

Then every file outside `mechanisms/<name>/` is searched for names that belong to one mechanism
(core's mechanism modules, their types, `mechanisms::<name>` paths); only the registry line in
`mechanisms/mod.rs` may name them.

Exit status 1 when there is a cycle or a leak. Usage: python3 web/tools/modgraph.py [--dot]
"""
import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
SRC = os.path.normpath(os.environ.get("MODGRAPH_SRC", SRC))

# Names that belong to one mechanism: generic files must not say them.
LEAKS = re.compile(
    r"herdlab_core::(herd|locks|accept)\b"
    r"|crate::mechanisms::(herd|locks|accept)\b"
    r"|\b(HerdParams|LockParams|AcceptParams|Shmtx\w*|AcceptWorker|EventWorker|HerdThread"
    r"|AcceptThread|LockWorker|LockSim|LockKind|Strategy|WakeMode|Primitive|MutexVariant)\b"
    r"|Scenario::(Herd|Locks|Accept)\b"
    # their files' and items' names (core's simulator notes and the lesson splitter's segment
    # kinds are not a mechanism's)
    r"|(?<!Note::)(?<!Segment::)\b(Lock|Accept|Herd)[A-Z]\w*"
    r"|\b(lock|herd)_\w+"
)


# The lesson splitter, on its way to the herdlab-lessons crate (issue 9), has its own owner.
EXEMPT = {"markdown.rs", "lesson_file.rs", "lesson_list.rs", "lesson_text.rs"}


def module_of(rel):
    """`live/pair.rs` -> ("live", "pair"); `live/mod.rs` -> ("live",); `main.rs` -> ()."""
    parts = rel[:-3].split("/")
    if parts[-1] == "mod":
        parts = parts[:-1]
    if parts == ["main"]:
        parts = []
    return tuple(parts)


def strip_tests(text):
    """The file without its unit tests (`#[cfg(test)] mod tests { … }`, always last): test code
    may reach across layers and is not part of the module structure."""
    m = re.search(r"^#\[cfg\(test\)\]\s*\n\s*(pub )?mod tests\b", text, re.M)
    return text[: m.start()] if m else text


def strip_comments(text):
    text = strip_tests(text)
    out = []
    for line in text.splitlines():
        s = line.lstrip()
        if s.startswith("//"):
            continue
        # a trailing comment (not inside a string: good enough for this code base)
        i = line.find(" // ")
        out.append(line if i < 0 else line[:i])
    return "\n".join(out)


def files():
    found = {}
    for d, _, fs in os.walk(SRC):
        for f in fs:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(d, f), SRC).replace(os.sep, "/")
            if rel.startswith("bin/"):
                continue
            found[module_of(rel)] = rel
    return found


def expand_uses(code):
    """Every `crate::…` path, with `use crate::a::{b, c::d}` groups expanded."""
    paths = []
    for m in re.finditer(r"crate((?:::\w+)+)(::\{)?", code):
        base = m.group(1)[2:].split("::")
        if m.group(2):
            depth, i = 1, m.end()
            while depth and i < len(code):
                depth += {"{": 1, "}": -1}.get(code[i], 0)
                i += 1
            inner = code[m.end() : i - 1]
            for item in re.split(r",(?![^{]*\})", inner):
                item = item.strip()
                if item:
                    name = re.split(r"::|\s", item)[0]
                    paths.append(base + [name])
        else:
            paths.append(base)
    return paths


def resolve(path, mods):
    for n in range(len(path), 0, -1):
        if tuple(path[:n]) in mods:
            return tuple(path[:n])
    return None


def tarjan(nodes, edges):
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def name(m):
    return "::".join(m) or "crate"


def main():
    mods = files()
    edges = {m: set() for m in mods}
    texts = {}
    for m, rel in mods.items():
        with open(os.path.join(SRC, rel), encoding="utf-8") as f:
            texts[m] = f.read()
        code = strip_comments(texts[m])
        for p in expand_uses(code):
            t = resolve(p, mods)
            if t is not None and t != m:
                edges[m].add(t)
    if "--dot" in sys.argv:
        print("digraph web {")
        for a in sorted(edges):
            for b in sorted(edges[a]):
                print(f'  "{name(a)}" -> "{name(b)}";')
        print("}")
        return 0
    bad = 0
    cycles = [c for c in tarjan(mods, edges) if len(c) > 1]
    print(f"files: {len(mods)}, edges: {sum(len(e) for e in edges.values())}")
    print(f"file-level cycles: {len(cycles)}")
    for c in cycles:
        print("  {" + ", ".join(name(m) for m in c) + "}")
    bad += len(cycles)

    def top(m):
        return m[0] if m else "main"

    fedges = {}
    for a, bs in edges.items():
        for b in bs:
            if top(a) != top(b):
                fedges.setdefault(top(a), set()).add(top(b))
    fnodes = {top(m) for m in mods}
    fcycles = [c for c in tarjan(fnodes, fedges) if len(c) > 1]
    print(f"folder-level cycles: {len(fcycles)}")
    for c in fcycles:
        print("  {" + ", ".join(c) + "}")
    for a in sorted(fedges):
        print(f"  {a} -> {', '.join(sorted(fedges[a]))}")
    if "-v" in sys.argv:
        for a in sorted(edges):
            for b in sorted(edges[a]):
                if top(a) != top(b):
                    print(f"    {name(a)} -> {name(b)}")
    bad += len(fcycles)

    leaks = []
    for m, rel in sorted(mods.items()):
        if len(m) >= 2 and m[0] == "mechanisms" or rel in EXEMPT:
            continue
        # tests too: a generic file's tests run it without any mechanism
        code = "\n".join(
            l for l in texts[m].splitlines() if not l.lstrip().startswith("//")
        )
        if m == ("mechanisms",):
            # the registry may name its mechanisms in its module list, its one registry line and
            # its tests
            code = re.sub(r"(?s)^registry!\(.*?\);", "", strip_comments(code), flags=re.M)
            code = "\n".join(
                l for l in code.splitlines() if not re.match(r"\s*pub mod \w+;", l)
            )
        for i, line in enumerate(code.splitlines(), 1):
            for hit in LEAKS.finditer(line):
                leaks.append(f"  {rel}: {hit.group(0)}: {line.strip()}")
    print(f"mechanism names in generic files: {len(leaks)}")
    for l in leaks:
        print(l)
    bad += len(leaks)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
