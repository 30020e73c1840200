"""Which runs make up which system: the door through which several runs per system come in.

In Python a system is given as a list of runs or transformers in place of one
(``{"monoT5": [run_s1, run_s2, run_s3], "BM25": bm25_run}``, or a list with ``names=``); on the
command line run files are grouped by a regular expression on their file names or a two-column
mapping file (:func:`group_names`). Without any list nothing changes: the systems go on as given.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._typing import PathLike

__all__ = ["RunGroups", "GroupedRuns", "split_systems", "group_names", "read_group_file"]


@dataclass(frozen=True)
class RunGroups:
    """Systems made of runs.

    Attributes:
        names: the systems' names, in order.
        members: per system, the positions of its runs in ``runs``.
        runs: the runs' names (``"monoT5[1]"``, ... for runs given in a list).
    """

    names: tuple
    members: tuple
    runs: tuple

    @property
    def n_runs(self) -> list[int]:
        return [len(m) for m in self.members]

    @property
    def several(self) -> bool:
        """Whether any system has two or more runs."""
        return any(len(m) > 1 for m in self.members)

    def mapping(self) -> dict[str, list[str]]:
        """``system -> run names``."""
        return {name: [self.runs[r] for r in members] for name, members in zip(self.names, self.members, strict=True)}

    @classmethod
    def of(cls, groups: Mapping[str, Sequence[str]], runs: Sequence[str]) -> RunGroups:
        """The groups ``system -> run names`` over ``runs`` (each run in exactly one system)."""
        position = {r: i for i, r in enumerate(runs)}
        return cls(tuple(groups), tuple(tuple(position[r] for r in members) for members in groups.values()),
                   tuple(runs))


@dataclass(frozen=True)
class GroupedRuns:
    """Runs (a mapping of run frames, or runs already interned) with the systems they make up
    (``system -> run names``): what the command line hands to ``experiment_result``."""

    runs: Any
    groups: Mapping[str, Sequence[str]]


def _is_group(system: Any) -> bool:
    return isinstance(system, (list, tuple))


def split_systems(retr_systems: Any, names: Sequence[Any] | None) -> tuple[Any, Sequence[str] | None, RunGroups | None]:
    """``(flat systems, their names, groups)``: lists of runs replaced by their runs, named
    ``"<system>[1]"``, ``"<system>[2]"``, ...; ``(retr_systems, names, None)`` when no system is a list.

    Example:
        >>> flat, names, groups = split_systems({"BM25": "a", "T5": ["b", "c"]}, None)
        >>> list(flat), groups.names, groups.members
        (['BM25', 'T5[1]', 'T5[2]'], ('BM25', 'T5'), ((0,), (1, 2)))
    """
    if isinstance(retr_systems, GroupedRuns):
        runs = retr_systems.runs
        run_names = list(runs.systems) if hasattr(runs, "systems") else list(runs)
        return runs, names, _checked_groups(retr_systems.groups, run_names)
    if isinstance(retr_systems, Mapping):
        if not any(_is_group(s) for s in retr_systems.values()):
            return retr_systems, names, None
        pairs = [(str(k), v) for k, v in retr_systems.items()]
    elif isinstance(retr_systems, (list, tuple)) and any(_is_group(s) for s in retr_systems):
        if names is None:
            first = next(i for i, s in enumerate(retr_systems) if _is_group(s))
            raise ValueError(f"retr_systems[{first}] is a list of runs (one system's seeds): name every system with "
                             f"names=[...] ({len(retr_systems)} names), or pass a dict name -> run or list of runs")
        if len(names) != len(retr_systems):
            raise ValueError(f"'names' has {len(names)} name(s) for {len(retr_systems)} systems: one name per system "
                             "(a list of runs is one system, named once)")
        if any(_is_group(n) for n in names):
            raise TypeError("'names' must hold one name per system (a string), not lists: the runs of a system "
                            "are named '<system>[1]', '<system>[2]', ...")
        pairs = [(str(n), s) for n, s in zip(names, retr_systems, strict=True)]
    else:
        return retr_systems, names, None
    return _flatten(pairs)


def _flatten(pairs: list[tuple[str, Any]]) -> tuple[dict, None, RunGroups]:
    if len({n for n, _ in pairs}) < len(pairs):
        raise ValueError("systems given as lists of runs need distinct names: "
                         f"{sorted({n for n, _ in pairs if [m for m, _ in pairs].count(n) > 1})} repeat")
    flat: dict[str, Any] = {}
    groups: dict[str, list[str]] = {}
    for name, system in pairs:
        members = list(system) if _is_group(system) else [system]
        if not members:
            raise ValueError(f"system {name!r} is an empty list: give at least one run")
        labels = [f"{name}[{i}]" for i in range(1, len(members) + 1)] if _is_group(system) else [name]
        for label, member in zip(labels, members, strict=True):
            if label in flat:
                raise ValueError(f"two runs would be named {label!r}: rename the system {name!r}")
            flat[label] = member
        groups[name] = labels
    return flat, None, RunGroups.of(groups, list(flat))


def _checked_groups(groups: Mapping[str, Sequence[str]], runs: Sequence[str]) -> RunGroups:
    seen: dict[str, str] = {}
    for system, members in groups.items():
        if not members:
            raise ValueError(f"system {system!r} has no runs")
        for r in members:
            if r not in runs:
                raise ValueError(f"system {system!r} names run {r!r}, which is not among the runs read")
            if r in seen:
                raise ValueError(f"run {r!r} is in two systems: {seen[r]!r} and {system!r}")
            seen[r] = system
    missing = [r for r in runs if r not in seen]
    if missing:
        raise ValueError(f"{len(missing)} run(s) belong to no system: {missing[:5]}")
    return RunGroups.of(groups, runs)


def group_names(runs: Sequence[str], *, pattern: str | None = None, mapping: Mapping[str, str] | None = None,
                files: Mapping[str, str] | None = None) -> dict[str, list[str]]:
    """``system -> run names``: runs grouped by ``pattern`` or ``mapping``, the others alone.

    Args:
        runs: the runs' names, in order.
        pattern: a regular expression searched in each run's file name (``files[run]``, else its
            name); a run it matches belongs to the system named by the group ``system``, else the
            first group, else the whole match. Runs it does not match stay systems of their own.
        mapping: run name (or file name) -> system; runs it does not name stay systems of their own.
        files: run name -> the file it was read from.

    Example:
        >>> group_names(["bm25", "t5-s1", "t5-s2"], pattern=r"(.+)-s\\d+$")
        {'bm25': ['bm25'], 't5': ['t5-s1', 't5-s2']}
    """
    if (pattern is None) == (mapping is None):
        raise ValueError("give one of 'pattern' (a regular expression) or 'mapping' (run -> system)")
    files = files or {}
    if pattern is not None:
        try:
            regex = re.compile(pattern)
        except re.error as error:
            raise ValueError(f"'pattern' {pattern!r} is not a regular expression: {error}") from None
    out: dict[str, list[str]] = {}
    for run in runs:
        file = Path(files.get(run, run)).name
        if pattern is not None:
            match = regex.search(file)
            system = run if match is None else _system_of(match)
        else:
            system = mapping.get(run, mapping.get(file, run))  # type: ignore[union-attr]  # mapping is set here
        out.setdefault(system, []).append(run)
    if len(out) == len(runs) and runs:
        what = f"'pattern' {pattern!r}" if pattern is not None else "'mapping'"
        shown = ", ".join(repr(Path(files.get(run, run)).name) for run in runs[:3])
        raise ValueError(f"{what} groups none of the {len(runs)} runs ({shown}{', ...' if len(runs) > 3 else ''}): "
                         "every run would be a system of its own")
    return out


def _system_of(match: re.Match) -> str:
    if "system" in match.re.groupindex:
        return match.group("system")
    return match.group(1) if match.re.groups else match.group(0)


def read_group_file(path: PathLike) -> dict[str, str]:
    """A two-column mapping file (``run system`` per line, whitespace or tab separated; ``#`` starts
    a comment) as ``run -> system``; errors name the file and line."""
    out: dict[str, str] = {}
    try:
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8").splitlines()
    except UnicodeDecodeError as error:
        raise ValueError(f"{path} is not UTF-8 text ({error.reason} at byte {error.start}): expected lines "
                         "'run system'") from None
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        fields = text.split()
        if len(fields) != 2:
            raise ValueError(f"{path}, line {number}: expected two columns 'run system', got {len(fields)}: "
                             f"{line.strip()!r}")
        if fields[0] in out and out[fields[0]] != fields[1]:
            raise ValueError(f"{path}, line {number}: run {fields[0]!r} is already in system {out[fields[0]]!r}")
        out[fields[0]] = fields[1]
    if not out:
        raise ValueError(f"{path} maps no run to a system")
    return out
