"""Running each system of an experiment once, as ``pt.Experiment`` does.

Systems given as frames are used as they are; transformers run on the topics (in batches with
``batch_size``), a shared pipeline prefix runs once with ``plan="tree"`` or
``precompute_prefix=True``, and ``save_dir`` writes (or, with ``save_mode="reuse"``, reads) one
results file per system, with ``pt.Experiment``'s file names and modes.
"""
from __future__ import annotations

import os
import time
import types
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd
import pyterrier as pt

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


SAVE_MODES = ("reuse", "overwrite", "warn", "error")


@dataclass(frozen=True)
class Executed:
    """Result frames of each system and the time spent producing them.

    Attributes:
        runs: name -> result frame, in the order of the systems.
        milliseconds: name -> milliseconds spent running the system (0 for frames and reused
            files), including its share of a precomputed prefix.
    """

    runs: dict
    milliseconds: dict


def _save_file(save_dir, name, save_format):
    if save_format == "trec":
        ext = "res.gz"
    elif isinstance(save_format, types.ModuleType):
        ext = "mod"
    elif isinstance(save_format, tuple) and len(save_format) == 2:
        ext = "custom"
    else:
        raise ValueError(f"Unknown save_format {save_format!r}: expected 'trec', a module such as pickle, "
                         "or a (read, write) pair of functions")
    return os.path.join(save_dir, f"{name}.{ext}")


def _read_saved(path, save_format):
    if save_format == "trec":
        return pt.io.read_results(path)
    with pt.io.autoopen(path, "rb") as handle:
        return save_format.load(handle) if isinstance(save_format, types.ModuleType) else save_format[0](handle)


def _write_saved(res, path, save_format):
    if save_format == "trec":
        missing = [c for c in ("qid", "docno", "score", "rank") if c not in res.columns]
        if missing:
            raise TypeError(f"save_dir was set, but the results lack {missing} for a TREC results file; "
                            "set save_format, e.g. save_format=pickle")
        pt.io.write_results(res, path)
        return
    with pt.io.autoopen(path, "wb") as handle:
        if isinstance(save_format, types.ModuleType):
            save_format.dump(res, handle)
        else:
            save_format[1](res, handle)


def _existing_file(path, save_mode):
    """What to do with an existing results file: True to reuse it."""
    if save_mode == "reuse":
        return True
    if save_mode == "overwrite":
        os.remove(path)
        return False
    message = (f"save_dir is set, but the file '{path}' already exists. To reuse it set save_mode='reuse'; "
               "to replace it set save_mode='overwrite'.")
    if save_mode == "error":
        raise ValueError(message)
    warnings.warn(message, stacklevel=4)
    return False


def _transform(system, topics, batch_size):
    if batch_size is None:
        return system.transform(topics)
    parts = [res for res in system.transform_gen(topics, batch_size=batch_size)]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def common_prefix(systems: Sequence[Any]) -> tuple[Any, list[Any]]:
    """The longest pipeline prefix shared by every transformer, and each system's remainder."""
    if len(systems) < 2 or not all(isinstance(s, pt.Transformer) for s in systems):
        return None, list(systems)
    stages = [list(s._transformers) if isinstance(s, pt.Compose) else [s] for s in systems]
    prefix = []
    for stage in zip(*stages):
        if all(t == stage[0] for t in stage[1:]):
            prefix.append(stage[0])
        else:
            break
    if not prefix:
        return None, list(systems)

    def build(parts):
        if not parts:
            return pt.Transformer.identity()
        return parts[0] if len(parts) == 1 else pt.Compose(*parts)

    return build(prefix), [build(st[len(prefix):]) for st in stages]


def named_systems(retr_systems: Any, names: Sequence[str] | None) -> tuple[list[Any], list[str]]:
    """``(systems, names)`` as pt.Experiment reads them: a dict's keys name its systems (``names`` is
    ignored); a list's names are ``names`` or ``str(system)``, for frames too."""
    if isinstance(retr_systems, dict):
        return list(retr_systems.values()), [str(n) for n in retr_systems]
    if isinstance(retr_systems, (list, tuple)):
        systems = list(retr_systems)
        if names is None:
            return systems, [str(s) for s in systems]
        if len(names) != len(systems):
            raise ValueError("names should be the same length as retr_systems")
        return systems, [str(n) for n in names]
    raise TypeError(f"Expected list or dict of transformers for retr_systems, instead received {type(retr_systems)}")


def check_system_types(systems: Sequence[Any], names: Sequence[str]) -> None:
    """A TypeError naming the first system that is neither a Transformer nor a DataFrame (a run
    file's path: read it with :func:`pyterrier_boot.read_runs` first)."""
    for system, name in zip(systems, names, strict=True):
        if not isinstance(system, (pd.DataFrame, pt.Transformer)):
            raise TypeError(f"system {name!r} is a {type(system).__name__}: expected a Transformer or a DataFrame")


def unique_keys(names: Sequence[str]) -> list[str]:
    """``names``, or ``"name (i)"`` for every system when a name repeats."""
    return list(names) if len(set(names)) == len(names) else [f"{n} ({i})" for i, n in enumerate(names)]


def run_systems(systems: Sequence[Any], names: Sequence[str], topics: pd.DataFrame, *,
                batch_size: int | None = None, save_dir: str | None = None,
                save_mode: str | None = "warn", save_format: str = "trec",
                share_prefix: bool = False, verbose: bool = False) -> Executed:
    """Run every system once (see the module docstring); returns :class:`Executed`."""
    prefix_ms = 0.0
    executed = list(systems)
    if share_prefix:
        prefix, remainders = common_prefix(systems)
        if prefix is not None:
            start = time.perf_counter()
            topics = _transform(prefix, topics, batch_size)
            prefix_ms = (time.perf_counter() - start) * 1000
            executed = remainders
    runs, milliseconds = {}, {}
    bar = pt.tqdm(total=len(systems), desc="pyterrier_boot.Experiment", unit="system", disable=not verbose)
    with bar:
        for name, system, original in zip(names, executed, systems):
            milliseconds[name] = 0.0
            if isinstance(original, pd.DataFrame):
                if len(original) == 0:
                    raise ValueError(f"system {name!r} is an empty results frame")
                runs[name] = original
                bar.update()
                continue
            path = _save_file(save_dir, name, save_format) if save_dir is not None else None
            if path is not None and os.path.exists(path) and _existing_file(path, save_mode):
                runs[name] = _read_saved(path, save_format)
                bar.update()
                continue
            start = time.perf_counter()
            res = _transform(system, topics, batch_size)
            milliseconds[name] = (time.perf_counter() - start) * 1000 + prefix_ms
            if len(res) == 0:
                raise ValueError(f"{len(topics)} topics, but no results received from {original}")
            if path is not None:
                _write_saved(res, path, save_format)
            runs[name] = res
            bar.update()
    return Executed(runs, milliseconds)


def print_plan(systems: Sequence[Any], names: Sequence[str]) -> None:
    """Print the systems as a tree under a ``Root`` (``pt.Experiment(plan="tree", verbose=True)``):
    the prefix shared by all pipelines once, each system's remainder below it."""
    prefix, remainders = common_prefix(systems)
    lines = ["", "Pipeline structure:", "Root"]
    indent = ""
    if prefix is not None:
        lines.append(f"└── {prefix}")
        indent = "    "
    else:
        remainders = list(systems)
    for i, (name, rest) in enumerate(zip(names, remainders)):
        branch = "└──" if i == len(names) - 1 else "├──"
        if isinstance(rest, pd.DataFrame):
            lines.append(f"{indent}{branch} DataFrame #{i} ({len(rest)} results)")
        else:
            lines.append(f"{indent}{branch} {rest}" + (f"  [{name}]" if name != str(rest) else ""))
    print("\n".join(lines) + "\n")
