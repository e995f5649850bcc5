"""Generated output shared by generate.py and nodeset.py: splitting it into parts of similar
weight (so the build parallelises), writing only the files whose content changed (so a rerun
rebuilds nothing), and removing parts left over from a run with more parts (CMake globs the
folder, so a stale part would still be compiled)."""

import os
import re


def write_if_changed(path, lines):
    data = "\n".join(lines).encode("utf-8")
    if not data.endswith(b"\n"):
        data += b"\n"
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return False
    except FileNotFoundError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return True


def write_output(out_dir, files, part_pattern=None):
    """Writes {name: lines} into out_dir; removes files matching part_pattern (when given) that
    are not in `files`. Returns the names changed or removed."""
    os.makedirs(out_dir, exist_ok=True)
    changed = [name for name in sorted(files) if write_if_changed(os.path.join(out_dir, name), files[name])]
    for name in sorted(os.listdir(out_dir)) if part_pattern else []:
        if re.fullmatch(part_pattern, name) and name not in files:
            os.remove(os.path.join(out_dir, name))
            changed.append(name + " (removed)")
    return changed


def split_by_weight(items, weights, parts):
    """`parts` contiguous runs of `items` whose summed `weights` are about equal."""
    total = sum(weights)
    runs, cur, acc, k = [], [], 0, 1
    for item, w in zip(items, weights):
        cur.append(item)
        acc += w
        if k < parts and acc >= total * k / parts:
            runs.append(cur)
            cur, k = [], k + 1
    runs.append(cur)
    while len(runs) < parts:
        runs.append([])
    return runs
